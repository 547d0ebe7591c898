// Package conversation is the chat service: the one place between the
// front ends (the TUI, `chorus run`, `chorus serve --ssh`, replays, and
// whatever serves chats next) and the pipeline. It owns what every front
// end used to repeat:
//
//   - opening, creating and resuming a session (Service.Open, Chat.Open,
//     Chat.Continue, Chat.NewSession), and listing, finding and deleting
//     saved ones;
//   - starting a turn (Chat.Run): the controller check, the traffic
//     recording (Chat.StartRecording), the history, the standing
//     constraints and the engine;
//   - the one reducer from a turn's pipeline.Events to its saved record
//     (recordBuilder, record.go);
//   - saving, safely with several writers: a save merges with what other
//     processes and chats saved meanwhile (sessions.Store.Merge) and
//     reports the turns they added (Sync), so no turn is ever lost.
//
// A front end renders events and asks for turns; it never builds a record
// or touches the store. A Service is shared (the ssh server's chats share
// one engine); a Chat is one front end's conversation: its controller
// model, constraints, recording and current Session.
package conversation

import (
	"errors"
	"log/slog"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// Record is a turn as a session keeps it.
type Record = sessions.Record

// Summary describes a saved session for a list.
type Summary = sessions.Summary

// ErrNotFound is wrapped for a session that does not exist.
var ErrNotFound = sessions.ErrNotFound

// Options configure a Service. Engine is required.
type Options struct {
	// Engine runs the turns. Chats start from it and may swap its
	// controller model (Chat.SetModel) or record it, each for itself.
	Engine *pipeline.Engine
	// Dir holds one file per session (config.Env.SessionsDir for the
	// user's own); required.
	Dir string
	// Logger records session saves and loads; nil discards.
	Logger *slog.Logger
	// Now is the clock of turn records; nil means time.Now.
	Now func() time.Time
	// Version is Chorus's version, written into recordings.
	Version string
	// Warmer keeps the controller's prompt cache warm for the service's
	// chats (Chat.Warm; Chat.Run cancels a warm-up in flight). Services
	// over one engine may share one (chorus serve --ssh); nil gives the
	// service its own.
	Warmer *Warmer
	// Observer, when set, watches the service's chats and turns (an
	// operator's metrics).
	Observer Observer
	// Drain lets the service's turns finish before a restart; services
	// over one engine may share one (chorus serve --ssh drains every
	// connection's at once). nil gives the service its own.
	Drain *Drain
}

// Service opens chats and sessions over one engine and one sessions
// directory, whose saved sessions it lists, finds and deletes (Library).
// It is safe for concurrent use.
type Service struct {
	opts Options
	Library
}

// New returns the service.
func New(opts Options) (*Service, error) {
	if opts.Engine == nil {
		return nil, errors.New("conversation: Options.Engine is nil")
	}
	if opts.Dir == "" {
		return nil, errors.New("conversation: Options.Dir is empty")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Warmer == nil {
		opts.Warmer = &Warmer{}
	}
	if opts.Drain == nil {
		opts.Drain = &Drain{}
	}
	return &Service{opts: opts, Library: NewLibrary(opts.Dir, opts.Logger)}, nil
}

// At returns a service over the same engine, warmer and version whose
// sessions are in dir, logging to log (nil: this service's logger). It is
// how `chorus serve --ssh` gives every key its own sessions while the
// chats share one engine and one warm prompt head.
func (s *Service) At(dir string, log *slog.Logger) *Service {
	opts := s.opts
	opts.Dir = dir
	if log != nil {
		opts.Logger = log
	}
	return &Service{opts: opts, Library: NewLibrary(opts.Dir, opts.Logger)}
}

// Warm fills the controller's prompt cache with the engine's head, with no
// history, in the background: `chorus serve --ssh` does it once when it
// starts, for every chat to come (they share the engine, and so the head).
func (s *Service) Warm() { s.opts.Warmer.Start(s.opts.Engine, nil) }

// Warmer is the service's warm-up of the controller's prompt head, shared
// with the services At returns.
func (s *Service) Warmer() *Warmer { return s.opts.Warmer }

// Engine is the engine chats start from.
func (s *Service) Engine() *pipeline.Engine { return s.opts.Engine }

// Drain is the service's drain (Options.Drain): Begin it to stop new
// turns before a restart, Wait for those in flight.
func (s *Service) Drain() *Drain { return s.opts.Drain }

// NewSession returns a new, unsaved session: it is written with its
// first turn.
func (s *Service) NewSession() *Session { return s.wrap(s.store.New("")) }

// IsLatest reports whether id asks for the newest session rather than
// naming one.
func IsLatest(id string) bool { return sessions.IsLatest(id) }

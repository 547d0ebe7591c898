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
//     (recorder, record.go);
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
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// Record is a turn as a session keeps it.
type Record = sessions.Turn

// Summary describes a saved session for a list.
type Summary = sessions.Summary

// ErrNotFound is wrapped for a session that does not exist.
var ErrNotFound = sessions.ErrNotFound

// Options configure a Service. Engine is required.
type Options struct {
	// Engine runs the turns. Chats start from it and may swap its
	// controller model (Chat.SetModel) or record it, each for itself.
	Engine *pipeline.Engine
	// Dir holds one file per session; "" means sessions.DefaultDir().
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
// directory. It is safe for concurrent use.
type Service struct {
	opts  Options
	store sessions.Store
}

// New returns the service.
func New(opts Options) (*Service, error) {
	if opts.Engine == nil {
		return nil, errors.New("conversation: Options.Engine is nil")
	}
	if opts.Dir == "" {
		opts.Dir = sessions.DefaultDir()
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
	return &Service{opts: opts, store: sessions.Store{Dir: opts.Dir, Logger: opts.Logger}}, nil
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
	return &Service{opts: opts, store: sessions.Store{Dir: opts.Dir, Logger: opts.Logger}}
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

// Dir is the sessions directory, for messages that name it.
func (s *Service) Dir() string { return s.opts.Dir }

// List summarises every saved session, newest first (damaged ones too,
// with why).
func (s *Service) List() ([]Summary, error) { return s.store.List() }

// Delete removes a saved session.
func (s *Service) Delete(id string) error { return s.store.Delete(id) }

// NewSession returns a new, unsaved session: it is written with its
// first turn.
func (s *Service) NewSession() *Session { return s.wrap(s.store.New("")) }

// Open loads the session id, or the newest one for "latest" (or "last").
// A session that does not exist gives an error wrapping ErrNotFound that
// names the sessions directory.
func (s *Service) Open(id string) (*Session, error) {
	ss, err := s.store.Open(id)
	if err != nil {
		return nil, err
	}
	return s.wrap(ss), nil
}

func (s *Service) wrap(ss *sessions.Session) *Session {
	return &Session{store: s.store, s: ss}
}

// Find resolves what a user typed to name a session: an id or "latest"
// as it is, else a title — the newest session of that title (any case),
// or the one session whose title starts with, then contains, the words
// given. Several matches are an error that names them; none leaves arg to
// Open, which says it was not found.
func (s *Service) Find(arg string) (string, error) {
	if sessions.IsLatest(arg) {
		return arg, nil
	}
	list, err := s.store.List()
	if err != nil {
		return "", err
	}
	want := strings.ToLower(strings.TrimSpace(arg))
	for _, x := range list {
		if x.ID == arg {
			return x.ID, nil
		}
	}
	for _, x := range list { // newest first
		if strings.ToLower(x.Title) == want {
			return x.ID, nil
		}
	}
	for _, match := range []func(title string) bool{
		func(t string) bool { return strings.HasPrefix(t, want) },
		func(t string) bool { return strings.Contains(t, want) },
	} {
		var found []Summary
		for _, x := range list {
			if x.Title != "" && match(strings.ToLower(x.Title)) {
				found = append(found, x)
			}
		}
		switch {
		case len(found) == 1:
			return found[0].ID, nil
		case len(found) > 1:
			var names []string
			for _, x := range found[:min(len(found), 4)] {
				names = append(names, fmt.Sprintf("%q (%s)", x.Title, x.ID))
			}
			return "", fmt.Errorf("%d sessions match %q: %s — give more of the title, or the id", len(found), arg, strings.Join(names, ", "))
		}
	}
	return arg, nil
}

// IsLatest reports whether id asks for the newest session rather than
// naming one.
func IsLatest(id string) bool { return sessions.IsLatest(id) }

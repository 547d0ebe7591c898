// Package app is one running Chorus: the configuration made into an engine
// (the controller, the skill catalog with the MCP servers' tools, the
// endpoints) — or, for a replay, the engine a recording answers from — the
// chat service over it, the standing constraints, and what the user should
// be told before the first turn.
//
// Every front end (the TUI, `chorus run`, `chorus serve --ssh`, `chorus mcp
// serve`, a replay in any of them) starts from one App and closes it when
// it ends; none builds an engine or a chat service itself, so they cannot
// drift apart in how they start. Close stops what New started (the MCP
// servers Chorus launched).
package app

import (
	"errors"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
)

// Options configure New. The zero value is a live Chorus that logs nowhere.
type Options struct {
	// Logger is the log file's logger, for the controller, the engine and
	// the chat service; nil discards.
	Logger *slog.Logger
	// Version is Chorus's version: told to MCP servers, written into
	// recordings.
	Version string
	// Replay, when it names a file, plays that recorded chat back instead
	// of talking to the controller server and the endpoints.
	Replay Replay
	// AllowTools are --allow-tool patterns (server.tool, server.*): each
	// is checked against the MCP servers as they started, and a typo is
	// refused (UsageError) rather than silently allowing nothing. Not
	// checked in a replay.
	AllowTools []string
	// AllowToolsFrom names where AllowTools came from, for the refusal of
	// a typo: "" is --allow-tool; chorus serve --ssh checks
	// serve.allow_tools the same way.
	AllowToolsFrom string
	// ResultTransport carries the downloads of files that providers answer
	// with by URL; nil dials public addresses only. Tests point it at
	// their fake CDN.
	ResultTransport http.RoundTripper
	// Observer, when set, watches every chat and turn of the chat service
	// (a server's metrics, package metrics).
	Observer conversation.Observer
	// Home and WorkDir are the user's home and the folder Chorus runs in,
	// where a turn resolves "~" and relative paths and the trust gate
	// judges them (pipeline.Options.Home, WorkDir); empty means the
	// process's, os.UserHomeDir and os.Getwd, read once here.
	Home, WorkDir string
}

// Replay is a recorded chat to play back (--replay, --replay-speed).
type Replay struct {
	// Path is the recording; "" means no replay.
	Path string
	// Speed is the pace: 1 as recorded, 2 twice as fast, 0 without
	// waiting. Negative is refused.
	Speed float64
}

// On reports whether a replay was asked for.
func (r Replay) On() bool { return r.Path != "" }

// UsageError marks bad usage or configuration — a key of the config file,
// a flag's value, a recording that cannot be replayed — as opposed to work
// that failed: the command line exits with status 2 for it, not 1.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usage wraps err as a UsageError.
func usage(err error) error { return &UsageError{Err: err} }

// App is one running Chorus, shared by the front end that made it. Its
// methods are safe for concurrent use; what they return is read-only.
type App struct {
	cfg  *config.Config
	svc  *conversation.Service
	cons pipeline.Constraints
	// replay is the opened recording, nil when the engine is live; note
	// says what is replayed (Markdown), empty when live.
	replay *recording.Replay
	note   string
	// warnings are what the user should know before the first turn, one
	// line each; mcp is how each configured MCP server started (nil when
	// replaying or when none is configured).
	warnings []string
	mcp      []mcp.Status

	mu      sync.Mutex
	closers []func() error
}

// New builds the engine cfg describes — or the replaying one when
// opts.Replay names a recording, whose controller model and inference mode
// then replace cfg's — and the chat service over it. On an error nothing
// New started is left running. Close the App when the front end ends.
func New(cfg *config.Config, opts Options) (*App, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	if opts.WorkDir == "" {
		opts.WorkDir, _ = os.Getwd()
	}
	a := &App{cfg: cfg}
	if err := a.start(cfg, opts); err != nil {
		_ = a.Close()
		return nil, err
	}
	return a, nil
}

// start builds the live or the replaying engine and the service over it.
func (a *App) start(cfg *config.Config, opts Options) error {
	var eng *pipeline.Engine
	var err error
	if opts.Replay.On() {
		eng, err = a.replayEngine(cfg, opts)
	} else {
		eng, err = a.liveEngine(cfg, opts)
	}
	if err != nil {
		return err
	}
	a.svc, err = conversation.New(conversation.Options{Engine: eng, Dir: cfg.Env.SessionsDir(), Logger: opts.Logger, Version: opts.Version, Observer: opts.Observer})
	return err
}

// liveEngine builds the engine from cfg with its standing constraints,
// and words what went wrong starting the MCP servers.
func (a *App) liveEngine(cfg *config.Config, opts Options) (*pipeline.Engine, error) {
	cons, err := standingConstraints(cfg)
	if err != nil {
		return nil, err
	}
	eng, err := a.newEngine(cfg, opts)
	if err != nil {
		return nil, err
	}
	a.cons, a.warnings = cons, mcpWarnings(a.mcp)
	if len(opts.AllowTools) > 0 {
		from := opts.AllowToolsFrom
		if from == "" {
			from = "--allow-tool"
		}
		w, err := checkAllowTools(from, opts.AllowTools, a.mcp)
		if err != nil {
			return nil, err
		}
		a.warnings = append(a.warnings, w...)
	}
	return eng, nil
}

// Config is the configuration the App runs with (in a replay, with the
// recording's controller model and inference mode).
func (a *App) Config() *config.Config { return a.cfg }

// Service is the chat service every chat of this App runs on.
func (a *App) Service() *conversation.Service { return a.svc }

// Engine is the engine the service's chats start from.
func (a *App) Engine() *pipeline.Engine { return a.svc.Engine() }

// Constraints are the standing constraints every chat starts with: the
// config's, or the recorded chat's in a replay.
func (a *App) Constraints() pipeline.Constraints { return a.cons }

// Replaying reports whether the App answers from a recording.
func (a *App) Replaying() bool { return a.replay != nil }

// Note says what is replayed (Markdown): the file, its turns, the request
// to type. Empty when live.
func (a *App) Note() string { return a.note }

// Warnings are what the user should know before the first turn — an MCP
// server that did not start, a tool its configuration names that it does
// not offer, an --allow-tool for a server that did not start — one line
// each, already cleaned of escape sequences.
func (a *App) Warnings() []string { return slices.Clone(a.warnings) }

// MCP is how each configured MCP server started: nil when replaying or
// when none is configured.
func (a *App) MCP() []mcp.Status { return slices.Clone(a.mcp) }

// onClose runs f when the App closes (newest first).
func (a *App) onClose(f func() error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closers = append(a.closers, f)
}

// Close stops what New started — the MCP servers Chorus launched — newest
// first, once; later calls do nothing. It returns what failed.
func (a *App) Close() error {
	a.mu.Lock()
	fs := a.closers
	a.closers = nil
	a.mu.Unlock()
	var errs []error
	for i := len(fs) - 1; i >= 0; i-- {
		errs = append(errs, fs[i]())
	}
	return errors.Join(errs...)
}

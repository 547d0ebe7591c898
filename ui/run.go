package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
)

// Options configure the TUI. Config and Service are required.
type Options struct {
	// Config is the loaded configuration: the controller host and model for
	// the status bar, the inference mode, the Hugging Face token's source
	// (never the token), and the ui section (review, debug, keys).
	Config *config.Config
	// Service is the chat service the TUI is a front end of: its engine
	// runs the turns, its sessions directory keeps them. The TUI starts
	// one conversation.Chat on it.
	Service *conversation.Service
	// Constraints are the standing constraints (the config's constraints
	// section, already parsed); /constrain changes them for the session.
	Constraints pipeline.Constraints
	// Resume is the id of a session to reopen ("latest" for the newest);
	// empty starts a new one.
	Resume string
	// Model is the controller model the user named (chorus -m): it wins
	// over the model a resumed session was saved with, and the chat says
	// so. Empty keeps the session's.
	Model string
	// System is the user's instruction for every answer of the chat
	// (chorus --system or --role; conversation.ChatOptions.System).
	System string
	// Getenv reads the environment (terminal detection, $EDITOR); nil
	// means os.Getenv.
	Getenv func(string) string
	// Now is the clock; nil means time.Now. Tests fix it so timers and
	// spinners render the same on every run.
	Now func() time.Time
	// Input and Output replace the terminal; nil means stdin and stdout.
	Input  io.Reader
	Output io.Writer
	// ProgramOptions are passed to tea.NewProgram after the ones Run sets.
	ProgramOptions []tea.ProgramOption

	// Intro is Markdown said in the chat when it opens (a replay says
	// what it replays); empty says nothing.
	Intro string

	// Remote is set when the person at the keyboard is on another machine
	// — a `chorus serve --ssh` connection; it names where they connect
	// from. Sound is then never played here (they would not hear it):
	// Chorus says so and offers the file instead.
	Remote string
	// NoPull refuses to download models onto the controller server:
	// /pull is refused, and the fixes the chat offers for a model the
	// server lacks name its admin instead — an ssh user's chat, which
	// shares the server with others, unless serve.allow_pull.
	NoPull bool
	// MaxPaste is the most text a paste may bring to the prompt; 0 means
	// DefaultMaxPaste (paste.go).
	MaxPaste int64
	// Workspace, when set, confines the chat's files to this directory: an
	// attachment, a path typed in a request, a file name completed with
	// Tab, a transcript or recording written must lie under it, and
	// relative and "~" paths start from it. A remote user's own directory,
	// so they cannot read the server's other files or each other's.
	Workspace string
	// OutputDir overrides the engine's output directory for this chat's
	// turns; empty keeps the engine's.
	OutputDir string
	// SpillQuota, when set, bounds the results kept in files that
	// OutputDir may hold (conversation.ChatOptions.SpillQuota): an ssh
	// user's, serve.spill_quota.
	SpillQuota int64
	// Approve, when set, decides whether a tool that may change things
	// runs, and the chat never asks its user (conversation.ChatOptions):
	// chorus serve --ssh, whose users are not this machine's, gives the
	// operator's serve.allow_tools here.
	Approve func(ctx context.Context, a pipeline.Approval) error

	// Warm keeps the controller's prompt cache warm for the next turn
	// (conversation.Chat.Warm): the chat warms after /model and after
	// loading a session, and WarmOnOpen also when it opens; a turn
	// cancels a warm-up still in flight. `chorus serve --ssh` leaves
	// WarmOnOpen off (the server warms once for all chats); a replay
	// leaves both off (the recording answers every call).
	Warm, WarmOnOpen bool
}

func (o *Options) defaults() error {
	if o.Config == nil {
		return errors.New("ui: Options.Config is nil")
	}
	if o.Service == nil {
		return errors.New("ui: Options.Service is nil")
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Program is the chat as a Bubble Tea program for a caller that runs it
// itself — an ssh server, whose middleware starts it with the connection's
// terminal and feeds it the window's new sizes. Finish must follow.
type Program struct {
	*tea.Program
	m *Model
}

// NewProgram builds the chat's program on opts.Input and opts.Output (and
// opts.ProgramOptions) without starting it. Configuration errors (bad key
// bindings) are returned before anything is drawn.
func NewProgram(ctx context.Context, opts Options) (*Program, error) {
	m, err := New(opts)
	if err != nil {
		return nil, err
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	popts = append(popts, opts.ProgramOptions...)
	return &Program{Program: tea.NewProgram(m, popts...), m: m}, nil
}

// Finish is what follows the program's end, however it ended: a turn
// still running is cancelled and saved as such, playback and pulls stop,
// and the session is saved. It returns the last save's error.
func (p *Program) Finish() error {
	p.m.shutdown()
	return p.m.saveErr
}

// Run opens the chat TUI and returns when the user quits or ctx is
// cancelled. A turn still running is cancelled and the session is saved
// before Run returns. Configuration errors (bad key bindings) are returned
// before the screen changes.
func Run(ctx context.Context, opts Options) error {
	prog, err := NewProgram(ctx, opts)
	if err != nil {
		return err
	}
	p, m := prog.Program, prog.m
	// A closed terminal (an ssh connection dropped, the window closed)
	// sends SIGHUP, whose default is to die on the spot: the turn under
	// way and anything unsaved would go with the process. Quit instead,
	// so the session is saved as on any other way out.
	hangup := make(chan os.Signal, 1)
	signal.Notify(hangup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case <-hangup:
			p.Quit()
		case <-done:
		}
	}()
	_, err = p.Run()
	signal.Stop(hangup)
	close(done)
	m.shutdown()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the caller cancelled: not an error of the TUI
	}
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	return m.saveErr
}

// closeWait is how long a turn cut off by quitting gets to wind down
// before it is saved with what it had.
const closeWait = 5 * time.Second

// shutdown cancels a running turn and playback and saves the session and
// the recording; a turn cut off by quitting is saved as cancelled, with
// its partial answer.
func (m *Model) shutdown() {
	if m.play != nil {
		m.play.cancel()
	}
	if m.pull != nil {
		m.pull.cancel()
	}
	m.saves.Wait()
	if err := m.conv.Close(closeWait); err != nil && m.saveErr == nil {
		m.saveErr = err
	}
}

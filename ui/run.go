package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/pipeline"
)

// Options configure the TUI. Config and Engine are required.
type Options struct {
	// Config is the loaded configuration: the controller host and model for
	// the status bar, the inference mode, the Hugging Face token's source
	// (never the token), and the ui section (review, debug, keys).
	Config *config.Config
	// Engine runs turns. /model swaps its controller with
	// Engine.WithController, so no other constructor is needed.
	Engine *pipeline.Engine
	// Constraints are the standing constraints (the config's constraints
	// section, already parsed); /constrain changes them for the session.
	Constraints pipeline.Constraints
	// SessionDir holds one file per session. Empty means
	// config.DataDir()/sessions.
	SessionDir string
	// Resume is the id of a session to reopen ("latest" for the newest);
	// empty starts a new one.
	Resume string
	// Logger records session saves and loads for the log file; nil
	// records nothing.
	Logger *slog.Logger
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
}

func (o *Options) defaults() error {
	if o.Config == nil {
		return errors.New("ui: Options.Config is nil")
	}
	if o.Engine == nil {
		return errors.New("ui: Options.Engine is nil")
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SessionDir == "" {
		o.SessionDir = defaultSessionDir()
	}
	return nil
}

// Run opens the chat TUI and returns when the user quits or ctx is
// cancelled. A turn still running is cancelled and the session is saved
// before Run returns. Configuration errors (bad key bindings) are returned
// before the screen changes.
func Run(ctx context.Context, opts Options) error {
	m, err := New(opts)
	if err != nil {
		return err
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	popts = append(popts, opts.ProgramOptions...)
	p := tea.NewProgram(m, popts...)
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

// shutdown cancels a running turn and playback and saves the session; a
// turn cut off by quitting is saved as cancelled, with its partial answer.
func (m *Model) shutdown() {
	if m.cancel != nil {
		m.cancel()
	}
	if m.running() {
		m.cur.Finish(nil, fmt.Errorf("%w: Chorus was closed", pipeline.ErrCancelled), m.now())
	}
	if m.play != nil {
		m.play.cancel()
	}
	if m.pull != nil {
		m.pull.cancel()
	}
	m.save()
}

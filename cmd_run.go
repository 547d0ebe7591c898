package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/sessions"
	"github.com/chorusai/chorus/text"
)

type runFlags struct {
	json      bool
	quiet     bool
	planOnly  bool
	attach    []string
	out       string
	constrain string
	// cont continues the newest saved session, session the one with this
	// id: its turns are the history, and the turn is saved into it.
	cont    bool
	session string
	// record saves the turn's controller and expert traffic to this file;
	// replay answers from such a file instead (--replay, --replay-speed).
	record string
	replay replaySource

	// From the root flags: debug shows debug events; modelSet says
	// --model was given, so a continued session's model does not replace
	// it; log writes to the log file (nil: nowhere).
	debug    bool
	modelSet bool
	log      *slog.Logger

	// From the command's streams: stdin is read for the request when it is
	// piped (nil: not); terminal says stdout is a terminal, where the answer
	// is rendered as Markdown rather than written raw.
	stdin    io.Reader
	terminal bool
}

func newRunCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   `run [flags] "request"`,
		Short: "Run one turn headless: the answer on stdout, the progress log on stderr",
		Long: `Run one request through the four stages (plan, select models, execute, respond) without the TUI.

The answer goes to stdout and the progress log (plan, models, tasks, files) to stderr, so chorus run fits in
a pipeline: rendered as Markdown when stdout is a terminal, the raw Markdown when it is a pipe or a file.
--quiet drops the progress log. --plan-only stops after planning and prints the plan on stdout as JSON ({"tasks": [...]}). When stdin is piped, it is read with the request: as data after the request given
as arguments (paths and URLs in it are not opened: name or --attach what a task may read), or as the whole
request without one (a long input is saved to a file in the output directory and attached). With --json every line of stdout is one JSON event: stage, plan, model,
task_start, task_progress, task_end, token, answer, report, error (and debug with --debug).
With --continue (the newest saved session) or --session ID, the request continues a session the TUI or an
earlier run saved: its turns are the chat history, so earlier files can be referred to, and this turn is
saved into it.
Exit status: 0 with an answer; 1 when the turn failed or every task of its plan failed (the cause is on
stderr); 2 for bad usage or configuration, or a session that does not exist; 130 when interrupted.`,
		Example: `  chorus run "describe ./cat.jpg and read the description aloud"
  chorus run --attach photo.png "what is in this picture?"
  cat notes.md | chorus run "summarize" > summary.md
  git diff | chorus run --quiet "write a commit message for this change"
  chorus run --json --plan-only "generate an image of a lighthouse and caption it"
  chorus run --continue "now read the caption aloud"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.cont && f.session != "" {
				return &exitError{code: 2, err: errors.New("--continue and --session both name a session; give one")}
			}
			f.stdin = pipedInput(cmd.InOrStdin())
			request := strings.TrimSpace(strings.Join(args, " "))
			if request == "" && f.stdin == nil {
				return &exitError{code: 2, err: errors.New(`run needs a request, e.g. chorus run "describe cat.jpg" (or piped: cat notes.md | chorus run "summarize")`)}
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			f.debug, f.modelSet, f.log = g.debug, g.model != "", g.logger()
			f.terminal = isTerminal(cmd.OutOrStdout())
			return runTurn(cmd.Context(), cfg, f, request, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "print only JSON events, one per line")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress log on stderr: only the answer (and a failure's one-line cause)")
	fl.BoolVar(&f.planOnly, "plan-only", false, "stop after planning and print the plan (JSON) on stdout")
	fl.StringArrayVarP(&f.attach, "attach", "a", nil, "attach a file (repeatable)")
	fl.StringVarP(&f.out, "out", "o", "", "directory for generated files (overrides output_dir)")
	fl.StringVar(&f.constrain, "constrain", "", `model constraints, e.g. "license=apache-2.0,mit max-size=1GB local-only smallest"`)
	fl.BoolVar(&f.cont, "continue", false, "continue the newest saved session (its turns are the history; this turn is saved into it)")
	fl.StringVar(&f.session, "session", "", `continue the saved session ID ("latest" for the newest)`)
	fl.StringVar(&f.record, "record", "", "record the turn's controller and expert traffic to FILE, to replay it with --replay FILE")
	f.replay.flags(cmd)
	return cmd
}

func runTurn(ctx context.Context, cfg *config.Config, f *runFlags, request string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl+C cancels the turn; a second one must end the program
	// even when the turn cannot wind down — stdout blocked on a pipe nobody
	// reads, or a terminal paused with Ctrl+S — so the default handling
	// comes back as soon as the first one arrives.
	go func() {
		<-ctx.Done()
		stop()
	}()

	log := f.log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	store := sessions.Store{Logger: log}
	sess, err := openSession(store, f)
	if err != nil {
		return err
	}
	if sess != nil && sess.Model != "" && !f.modelSet {
		cfg.Controller.Model = sess.Model // as the TUI does when it reopens a session
	}
	cons, err := standingConstraints(cfg)
	if err != nil {
		return err
	}
	if sess != nil && !sess.Constraints.IsZero() {
		cons = sess.Constraints // the session's standing constraints replace the config's, as in the TUI
	}
	if f.constrain != "" {
		c, err := pipeline.ParseConstraints(f.constrain)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--constrain: %w", err)}
		}
		cons = cons.Merge(c)
	}
	attachments, err := checkAttachments(f.attach)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if f.out != "" {
		abs, err := filepath.Abs(f.out)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--out: %w", err)}
		}
		cfg.OutputDir = abs
	}
	piped, err := withPipedInput(request, f.stdin, cfg.OutputDir, time.Now())
	if err != nil {
		return err
	}
	request, spooled := piped.Request, piped.Spooled
	if spooled != "" {
		attachments = append(attachments, spooled)
	}
	st, err := newSetup(cfg, f.replay, log)
	if err != nil {
		return err
	}
	eng := st.eng
	if st.replay != nil {
		cons = st.cons // the recorded turn was selected under its own constraints
	}
	logw := stderr
	if f.quiet {
		logw = io.Discard
	}
	p := newPrinter(stdout, logw, f.json, f.debug)
	p.planOnly = f.planOnly
	if f.terminal && !f.json {
		p.render = terminalMarkdown(stdout)
	}
	if st.note != "" {
		p.note("%s", st.note)
	}
	if spooled != "" {
		p.note("stdin: %s, attached as %s", humanSize(spooled), spooled)
	}
	if why := eng.Unqualifiable(cons); why != "" {
		p.warn(pipeline.StageSelection, why)
	}
	var tape *recording.Recorder
	if f.record != "" {
		tape, eng = startRecording(eng, f.record, cons)
		tape.BeginTurn(request, attachments)
	}
	if sess != nil {
		p.note("session: %s (%s), continuing after %d turn(s)", cmp.Or(sess.Title, sess.ID), sess.ID, len(sess.Turns))
	}
	if st := eng.Controller().Check(ctx); st.Err != nil {
		if ctx.Err() != nil {
			p.emit(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: "cancelled — nothing more will run this turn", Fatal: true})
			return &exitError{code: 130, err: errors.New("interrupted — the turn was cancelled")}
		}
		p.emit(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: st.Err.Error(), Fatal: true})
		return &exitError{code: 1, err: st.Err}
	}
	emit := p.emit
	var rec *sessions.Recorder
	if sess != nil {
		rec = sessions.NewRecorder(request, attachments, time.Now())
		rec.SetInput(piped.Input)
		emit = func(ev pipeline.Event) {
			rec.Observe(ev)
			p.emit(ev)
		}
	}
	turn := pipeline.Turn{Request: request, Input: piped.Input, Attachments: attachments, History: sess.History(), Constraints: cons, PlanOnly: f.planOnly}
	rep, err := eng.Run(ctx, turn, emit)
	p.finish()
	result := turnResult(rep, err, f.planOnly)
	if tape != nil {
		if err := tape.Save(); err != nil {
			fmt.Fprintln(stderr, "chorus:", text.Clean(text.OneLine(err.Error(), 0)))
			if result == nil {
				result = &exitError{code: 1, err: err}
			}
		} else {
			p.note("recorded to %s — replay it with chorus --replay %s", tape.Path(), tape.Path())
		}
	}
	if sess == nil {
		return result
	}
	sess.Model = eng.Controller().Model()
	sess.AddTurn(rec.Finish(rep, err, time.Now()))
	if err := store.Save(sess); err != nil {
		if result == nil {
			return &exitError{code: 1, err: err}
		}
		fmt.Fprintln(stderr, "chorus:", text.Clean(text.OneLine(err.Error(), 0)))
		return result
	}
	p.note("saved to session %s", sess.ID)
	return result
}

// turnResult is how a run ends: nil with an answer (or a plan with
// --plan-only), else the exit status and the one-line cause.
func turnResult(rep *pipeline.Report, err error, planOnly bool) error {
	switch {
	case errors.Is(err, pipeline.ErrCancelled):
		return &exitError{code: 130, err: errors.New("interrupted — the turn was cancelled")}
	case err != nil:
		return &exitError{code: 1, err: errors.New(text.OneLine(err.Error(), 0))}
	case planOnly:
		return nil
	case rep == nil || strings.TrimSpace(rep.Answer) == "":
		return &exitError{code: 1, err: errors.New("the controller returned an empty answer")}
	case allTasksFailed(rep):
		// The controller still explains what went wrong on stdout, but a
		// script must not take "none of it ran" for success.
		return &exitError{code: 1, err: fmt.Errorf("every task of the plan failed (%d of %d) — the answer says why", len(rep.Tasks), len(rep.Tasks))}
	}
	return nil
}

// allTasksFailed reports whether the plan had tasks and none succeeded.
func allTasksFailed(rep *pipeline.Report) bool {
	if len(rep.Tasks) == 0 {
		return false
	}
	for _, t := range rep.Tasks {
		if t.Status == pipeline.StatusOK {
			return false
		}
	}
	return true
}

// openSession loads the session --continue or --session names; nil when
// neither was given. A session that does not exist is bad usage (status
// 2); one that cannot be read is a failure (status 1).
func openSession(store sessions.Store, f *runFlags) (*sessions.Session, error) {
	id := f.session
	if f.cont {
		id = "latest"
	}
	if id == "" {
		return nil, nil
	}
	s, err := store.Open(id)
	switch {
	case errors.Is(err, sessions.ErrNotFound):
		return nil, &exitError{code: 2, err: err}
	case err != nil:
		return nil, &exitError{code: 1, err: err}
	}
	return s, nil
}

// checkAttachments makes attachment paths absolute and proves they exist.
func checkAttachments(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("--attach %s: %w", p, err)
		}
		st, err := os.Stat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("attachment %s does not exist", p)
		case err != nil:
			return nil, fmt.Errorf("attachment %s: %w", p, err)
		case st.IsDir():
			return nil, fmt.Errorf("attachment %s is a directory; attach files", p)
		case !st.Mode().IsRegular():
			// A pipe or device (/dev/stdin, <(cmd)) cannot be read twice
			// and may never end: the turn would hang reading it.
			return nil, fmt.Errorf("attachment %s is not a regular file (a pipe or device); save it to a file and attach that", p)
		}
		out = append(out, abs)
	}
	return out, nil
}

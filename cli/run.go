package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/text"
)

type runFlags struct {
	json      bool
	quiet     bool
	planOnly  bool
	attach    []string
	out       string
	constrain string
	// cont continues a saved session: "latest" (a bare --continue) the
	// newest, else the one its id or title names; session the one with
	// this id (or title): its turns are the history, and the turn is
	// saved into it.
	cont    string
	session string
	// noSave keeps the turn out of any session (by default every run's
	// turn is saved: into a new session, or the one continued).
	noSave bool
	// record saves the turn's controller and expert traffic to this file;
	// replay answers from such a file instead (--replay, --replay-speed).
	record string
	replay app.Replay
	// allowTools are the MCP tools that may run though they may change
	// things (not annotated read-only): --allow-tool. ask asks about the
	// others on the terminal; nil (no terminal) refuses them.
	allowTools []string
	ask        *asker
	// system is the user's instruction for the answer (--system TEXT), or
	// role names a saved one (--role NAME, response.roles); check makes
	// system what the answer stage reads.
	system string
	role   string

	// From the root flags: debug shows debug events; modelSet says
	// --model was given, so a continued session's model does not replace
	// it; log writes to the log file (nil: nowhere).
	debug    bool
	modelSet bool
	log      *slog.Logger
	// app are the App's options the root command gives every front end
	// (the version, the result transport); runTurn adds the logger, the
	// replay and --allow-tool.
	app app.Options

	// From the command's streams: stdin is read for the request when it is
	// piped (nil: not); terminal says stdout is a terminal, where the answer
	// is rendered as Markdown rather than written raw.
	stdin    io.Reader
	terminal bool

	// What runTurn made of the flags before the App was built: the
	// attachments as absolute paths, --constrain parsed.
	attachments []string
	extra       pipeline.Constraints
}

func newRunCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   `run [flags] "request"`,
		Short: "Run one turn headless: the answer on stdout, the progress log on stderr",
		Long: `Run one request through the four stages (plan, select models, execute, respond) without the TUI.

The answer goes to stdout and the progress log (plan, models, tasks, files) to stderr, so chorus run fits in
a pipeline: rendered as Markdown when stdout is a terminal, the raw Markdown when it is a pipe or a file.
--quiet drops the progress log. --plan-only stops after planning and prints the plan on stdout as JSON ({"tasks": [...]}); nothing of it is saved. When stdin is piped, it is read with the request: as data after the request given
as arguments (paths and URLs in it are not opened: name or --attach what a task may read), or as the whole
request without one (a long input is saved to a file in the output directory and attached). With --json every line of stdout is one JSON event: stage, plan, model,
task_start, task_progress, task_end, token, answer, report, error (and debug with --debug).
Every run's turn (but --plan-only's) is saved into a session, whose id ends the progress log on stderr ("session: ID"; not
with --quiet, nor after a failed --json run, whose stderr is its one-line cause; --no-save keeps the turn
out of any session). With --continue (-c: the newest saved session — a new one when there is none), --continue=TITLE
or --session ID (a session's id, or the start of its title or id: of several matches the newest, saying which), the
request continues a session the TUI or an earlier run saved: its turns are the chat history, so earlier
files can be referred to, and this turn is saved into it. Several runs, and the TUI, may continue one
session at once: every turn is kept.
--system TEXT, or --role NAME (an instruction saved in config.yaml's response.roles), is read first by the
answer stage: how the answer is written (tone, length, language), not what runs. -m MODEL (--model) is the
controller model for this run.
A tool that may change things (an MCP tool not annotated read-only) is asked about on a terminal — "Run
server.tool? y run · a always · n no" on stderr, one key — when stdin and stderr are one; in a script or a pipe
it runs only when --allow-tool names it, and its task fails otherwise.
Exit status: 0 with an answer; 1 when the turn failed or every task of its plan failed (the cause is on
stderr); 2 for bad usage or configuration, or a session that does not exist; 130 when interrupted.`,
		Example: `  chorus run "describe ./cat.jpg and read the description aloud"
  chorus run --attach photo.png "what is in this picture?"
  cat notes.md | chorus run "summarize" > summary.md
  git diff | chorus run --quiet "write a commit message for this change"
  chorus run --json --plan-only "generate an image of a lighthouse and caption it"
  chorus run --continue "now read the caption aloud"
  chorus run -m llama3.2 --system "answer in French" "what is in ./cat.jpg?"
  chorus run --continue=lighthouse --role terse "and the caption?"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.cont != "" && f.session != "" {
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
			f.app = g.folders(app.Options{Version: g.version, ResultTransport: g.downloads})
			f.terminal = isTerminal(stdout(cmd))
			f.ask = terminalAsker(cmd.InOrStdin(), cmd.ErrOrStderr(), f.allowTools)
			return runTurn(cmd.Context(), cfg, f, request, stdout(cmd), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "print only JSON events, one per line")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress log on stderr: only the answer (and a failure's one-line cause)")
	fl.BoolVar(&f.planOnly, "plan-only", false, "stop after planning and print the plan (JSON) on stdout; no session is saved")
	fl.StringArrayVarP(&f.attach, "attach", "a", nil, "attach a file, or a folder whose files the tools may read (repeatable)")
	fl.StringVarP(&f.out, "out", "o", "", "directory for generated files (overrides output_dir)")
	fl.StringVar(&f.constrain, "constrain", "", `model constraints, e.g. "license=apache-2.0,mit max-size=1GB local-only smallest"`)
	fl.StringVarP(&f.cont, "continue", "c", "", "continue the newest saved session, or start one; --continue=TITLE the one whose title (or id) starts so (its turns are the history; this turn is saved into it)")
	fl.Lookup("continue").NoOptDefVal = "latest"
	fl.StringVar(&f.session, "session", "", `continue the saved session ID, or the one whose title starts so ("latest" for the newest)`)
	fl.BoolVar(&f.noSave, "no-save", false, "do not save the turn into a session")
	fl.StringVar(&f.record, "record", "", "record the turn's controller and expert traffic to FILE, to replay it with --replay FILE")
	replayFlags(cmd, &f.replay)
	fl.StringVar(&f.system, "system", "", `an instruction for the answer, read first by the answer stage (tone, length, language — not what runs), e.g. "answer in French"`)
	fl.StringVar(&f.role, "role", "", "a saved instruction for the answer: the one response.roles in config.yaml names NAME (as --system gives one)")
	fl.StringSliceVar(&f.allowTools, "allow-tool", nil, "let the MCP tool NAME run unasked though it is not annotated read-only (server.tool, or server.* for all of a server's; repeatable) — without a terminal to ask on, only these run")
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

	if err := f.check(cfg); err != nil {
		return err
	}
	opts := f.app
	opts.Logger, opts.Replay, opts.AllowTools = f.log, f.replay, f.allowTools
	a, err := app.New(cfg, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	return runOn(ctx, a, f, request, stdout, stderr)
}

// check makes what the flags name usable before the App is built: the
// attachments absolute (and proven to exist), --out into cfg.OutputDir,
// --constrain parsed. Each problem is bad usage (status 2).
func (f *runFlags) check(cfg *config.Config) error {
	attachments, err := checkAttachments(f.app.WorkDir, f.attach)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	f.attachments = attachments
	if f.out != "" {
		abs, err := absFrom(f.app.WorkDir, f.out)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--out: %w", err)}
		}
		cfg.OutputDir = abs
	}
	if f.constrain != "" {
		if f.extra, err = pipeline.ParseConstraints(f.constrain); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--constrain: %w", err)}
		}
	}
	f.system, err = answerSystem(cfg, f.system, f.role)
	return err
}

// answerSystem is the instruction for the answers that --system gives, or
// the saved one --role names; both, or a role not saved, is bad usage
// (status 2).
func answerSystem(cfg *config.Config, system, role string) (string, error) {
	if role == "" {
		return system, nil
	}
	if system != "" {
		return "", &exitError{code: 2, err: errors.New("--role and --system both give the answer an instruction; give one")}
	}
	s, err := roleInstruction(cfg, role)
	if err != nil {
		return "", &exitError{code: 2, err: err}
	}
	return s, nil
}

// roleInstruction is the instruction response.roles saves under name (any
// case); an unknown name is an error listing the saved ones.
func roleInstruction(cfg *config.Config, name string) (string, error) {
	roles, key := cfg.Response.Roles, strings.ToLower(strings.TrimSpace(name))
	if s, ok := roles[key]; ok {
		if s = strings.TrimSpace(s); s == "" {
			return "", fmt.Errorf("--role %s: response.roles.%s in config.yaml is empty — write the instruction there", name, key)
		}
		return s, nil
	}
	if len(roles) == 0 {
		return "", fmt.Errorf("--role %s: no role is saved — add it to config.yaml under response.roles (%s: the instruction), or give one with --system TEXT", name, strings.ToLower(name))
	}
	return "", fmt.Errorf("--role %s: no such role in response.roles — the saved ones: %s", name, strings.Join(slices.Sorted(maps.Keys(roles)), ", "))
}

// runOn runs the request as one turn on a's chat service: the session
// --continue or --session names, the progress log, the answer, the exit
// status.
func runOn(ctx context.Context, a *app.App, f *runFlags, request string, stdout, stderr io.Writer) error {
	cfg, svc, attachments := a.Config(), a.Service(), f.attachments
	chat := svc.Chat(conversation.ChatOptions{Constraints: a.Constraints(), NoSave: f.noSave, System: f.system})
	resumed, err := openSession(chat, f, stderr)
	if err != nil {
		return err
	}
	saved := chat.Model()
	if f.modelSet || a.Replaying() {
		chat.SetModel(cfg.Controller.Model) // --model (or the recording's) wins over the session's
	}
	switch {
	case a.Replaying():
		chat.SetConstraints(a.Constraints()) // the recorded turn was selected under its own constraints
	case f.constrain != "":
		chat.SetConstraints(chat.Constraints().Merge(f.extra))
	}
	piped, err := withPipedInput(request, f.stdin, cfg.OutputDir, time.Now())
	if err != nil {
		return err
	}
	request, spooled := piped.Request, piped.Spooled
	if spooled != "" {
		attachments = append(attachments, spooled)
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
	if note := a.Note(); note != "" {
		p.note("%s", note)
	}
	for _, w := range a.Warnings() {
		p.note("warning: %s", w)
	}
	if spooled != "" {
		p.note("stdin: %s, attached as %s", humanSize(spooled), spooled)
	}
	if why := chat.Engine().Unqualifiable(chat.Constraints()); why != "" {
		p.warn(pipeline.StageSelection, why)
	}
	if f.record != "" {
		if err := chat.StartRecording(f.record); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--record: %w", err)}
		}
	}
	continuing(p, chat, f, resumed, saved)
	approve := pipeline.AllowTools(f.allowTools)
	if f.ask != nil {
		approve = f.ask.approve
	}
	res := chat.Run(ctx, conversation.Request{Request: request, Input: piped.Input, Attachments: attachments, PlanOnly: f.planOnly, Check: true,
		Approve: approve,
		Synced: func(s conversation.Sync) {
			p.note("%d turn(s) another chat saved meanwhile are part of the history", len(s.Added))
		}}, p.emit)
	p.finish()
	if !res.Ran {
		if errors.Is(res.Err, pipeline.ErrCancelled) {
			return &exitError{code: 130, err: errors.New("interrupted — the turn was cancelled")}
		}
		return &exitError{code: 1, err: res.Err}
	}
	result := turnResult(res.Report, res.Err, f.planOnly)
	fail := func(err error) {
		fmt.Fprintln(stderr, "chorus:", text.Clean(text.OneLine(err.Error(), 0)))
		if result == nil {
			result = &exitError{code: 1, err: err}
		}
	}
	if f.record != "" {
		if res.TapeErr != nil {
			fail(res.TapeErr)
		} else {
			p.note("recorded to %s — replay it with chorus --replay %s", f.record, f.record)
		}
	}
	switch {
	case res.SaveErr != nil:
		if result == nil {
			return &exitError{code: 1, err: res.SaveErr}
		}
		fmt.Fprintln(stderr, "chorus:", text.Clean(text.OneLine(res.SaveErr.Error(), 0)))
	case res.Saved && (result == nil || !f.json):
		// The id, on a line of its own (with --json too), for the next
		// run's --session; a failed --json run's stderr stays its one-line
		// cause.
		fmt.Fprintf(logw, "session: %s\n", res.Session.ID())
	}
	return result
}

// continuing says which session the run continues, and the controller
// model -m named in place of the one it was saved with (saved); or that
// --continue found none to continue.
func continuing(p *printer, chat *conversation.Chat, f *runFlags, resumed bool, saved string) {
	sess := chat.Session()
	switch {
	case resumed && f.modelSet && saved != chat.Model():
		p.note("continuing session %s (%s) after %d turn(s), with controller %s (-m), not the session's %s",
			cmp.Or(sess.Title(), sess.ID()), sess.ID(), sess.Len(), chat.Model(), saved)
	case resumed:
		p.note("continuing session %s (%s) after %d turn(s)", cmp.Or(sess.Title(), sess.ID()), sess.ID(), sess.Len())
	case f.cont != "":
		p.note("no saved session yet in %s — this run starts one", chat.Service().Dir())
	}
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

// openSession opens the session --continue or --session names into chat:
// a bare --continue the newest (or, with none, the chat keeps its new one;
// with a newest that cannot be loaded, it fails saying so), --continue=ARG
// and --session ARG the one ARG names by id or title (findSession: of
// several matches the newest, stderr naming the others). A session that
// does not exist is bad usage (status 2), its error naming the sessions
// folder; one that cannot be read is a failure (status 1).
func openSession(chat *conversation.Chat, f *runFlags, stderr io.Writer) (resumed bool, err error) {
	arg := cmp.Or(f.cont, f.session)
	switch {
	case arg == "":
		return false, nil
	case f.cont == "latest":
		resumed, err = chat.Continue()
	default:
		id, ferr := findSession(&chat.Service().Library, arg, true, stderr)
		if ferr != nil {
			return false, ferr
		}
		_, err = chat.Open(id)
		resumed = err == nil
	}
	switch {
	case errors.Is(err, conversation.ErrNotFound):
		return false, &exitError{code: 2, err: err}
	case err != nil && f.cont == "latest":
		// Never a new session in its place, unsaid: the user asked to
		// go on with the newest one.
		return false, &exitError{code: 1, err: fmt.Errorf("--continue: %w — run without --continue to start a new session, or go on with another one with --session ID", err)}
	case err != nil:
		return false, &exitError{code: 1, err: err}
	}
	return resumed, nil
}

// absFrom is p made absolute from the folder wd, or from the process's
// when wd is "".
func absFrom(wd, p string) (string, error) {
	if wd != "" && !filepath.IsAbs(p) {
		return filepath.Join(wd, p), nil
	}
	return filepath.Abs(p)
}

// checkAttachments makes attachment paths absolute and proves they exist.
// A folder is a grant of its paths to the tools that take one (list it,
// read the files in it: scope.AllowFolder); the file system's root is not.
func checkAttachments(wd string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs, err := absFrom(wd, p)
		if err != nil {
			return nil, fmt.Errorf("--attach %s: %w", p, err)
		}
		st, err := os.Stat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("attachment %s does not exist", p)
		case err != nil:
			return nil, fmt.Errorf("attachment %s: %w", p, err)
		case st.IsDir() && filepath.Dir(abs) == abs:
			return nil, fmt.Errorf("attachment %s: %w", p, scope.ErrBroadFolder)
		case st.IsDir():
		case !st.Mode().IsRegular():
			// A pipe or device (/dev/stdin, <(cmd)) cannot be read twice
			// and may never end: the turn would hang reading it.
			return nil, fmt.Errorf("attachment %s is not a regular file (a pipe or device); save it to a file and attach that", p)
		}
		out = append(out, abs)
	}
	return out, nil
}

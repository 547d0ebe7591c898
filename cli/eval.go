package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"charm.land/bubbles/v2/progress"
	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/eval"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/text"
)

type evalFlags struct {
	models []string
	suite  string
	repeat int
	limit  int
	json   bool
	sel    bool
	// failures runs the failure suite as whole turns with scripted
	// failing experts, with and without the plan's revision.
	failures bool
}

func newEvalCmd(g *globalFlags) *cobra.Command {
	f := &evalFlags{}
	cmd := &cobra.Command{
		Use:   "eval [flags]",
		Short: "Score controller models' plans against a suite of requests with gold plans",
		Long: `Run the planning stage of every request in a suite against each controller model — the same prompts,
schema, parser and validator a real turn uses, no task runs — and score each plan against its gold plan as a
graph (task names and dependencies, ids renumbered). A table on stdout: valid-plan rate before and after
Chorus's repair; TaskBench's node F1, link F1 and edit distance of the reply as written (read as TaskBench
reads it) and of the plan after repair; task-name accuracy, node and edge F1, graph edit distance, arguments
right, HIVE's TS and FoT; median planning latency and tokens — by gold shape (single, chain, graph) for one
model, or side by side with the best of each row marked for several. docs/eval.md explains each metric.

Without --suite, the embedded Chorus suite runs (its image, audio and video inputs are generated in a
temporary directory). --suite reads a suite file: Chorus's JSON format, TaskBench's data.json, or JSON
lines of {"request": "...", "gold_tasks": [{"task", "id", "dep"}]}.
Progress goes to stderr. Ctrl+C stops and prints what has been measured (exit status 130).

--failures runs the failure suite instead: whole turns on the controller whose experts are scripted to fail
(a video model down, a captioner down…), and reports how often the request was still served without the
revision of the plan after a failure and with it (planner.revise, at least 1) — what a model gains from it.
--suite then reads a Chorus JSON suite whose cases say "fail" and "serves".`,
		Example: `  chorus eval
  chorus eval --model qwen3:8b --model llama3.2:3b --limit 20
  chorus eval --suite taskbench/data_huggingface/data.json --limit 100 --json > scores.json
  chorus eval --repeat 3 --select
  chorus eval --failures --model qwen3:8b --model llama3.2:3b`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.repeat < 1 {
				return &exitError{code: 2, err: fmt.Errorf("--repeat %d: give 1 or more", f.repeat)}
			}
			if f.limit < 0 {
				return &exitError{code: 2, err: fmt.Errorf("--limit %d: give 0 (all) or more", f.limit)}
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if f.failures && cfg.Planner.Revise < 1 {
				return &exitError{code: 2, err: errors.New("--failures compares turns with and without the plan's revision, but planner.revise is 0 — set it to 1 (CHORUS_PLANNER_REVISE=1)")}
			}
			return runEval(cmd.Context(), cfg, g, f, stdout(cmd), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	// A local --model (repeatable) shadows the root's single one.
	fl.StringArrayVar(&f.models, "model", nil, "controller model to evaluate (repeatable; default: controller.model)")
	fl.StringVar(&f.suite, "suite", "", "suite file: Chorus JSON, TaskBench data.json, or JSONL of {request, gold_tasks} (default: the embedded suite)")
	fl.IntVar(&f.repeat, "repeat", 1, "run every request N times")
	fl.IntVar(&f.limit, "limit", 0, "run only the first N requests of the suite (0: all)")
	fl.BoolVar(&f.json, "json", false, "print the scores, and every plan, as JSON")
	fl.BoolVar(&f.sel, "select", false, "also run model selection on each plan")
	fl.BoolVar(&f.failures, "failures", false, "run the failure suite: whole turns with scripted failing experts, served with and without plan revision")
	return cmd
}

// evalEngines returns an engine for each of the models, on eng's
// catalog and endpoints. Every model is checked before any runs: a model
// that is not pulled should not be found out after the first one's ten
// minutes.
func evalEngines(ctx context.Context, cfg *config.Config, eng *pipeline.Engine, models []string, log *slog.Logger) ([]*pipeline.Engine, error) {
	engines := make([]*pipeline.Engine, len(models))
	var problems []string
	for i, m := range models {
		ctl, err := app.NewController(cfg, m, log)
		if err != nil {
			return nil, err
		}
		engines[i] = eng.WithController(ctl)
		if st := ctl.Check(ctx); st.Err != nil {
			if ctx.Err() != nil {
				return nil, &exitError{code: 130, err: errors.New("interrupted before any request ran")}
			}
			problems = append(problems, st.Err.Error())
		}
	}
	if len(problems) > 0 {
		return nil, &exitError{code: 1, err: errors.New(strings.Join(problems, "; "))}
	}
	return engines, nil
}

// runEval runs the suite on each model and writes the scores: one table,
// a comparison of several models, or --json.
func runEval(ctx context.Context, cfg *config.Config, g *globalFlags, f *evalFlags, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl+C ends the program at once
	}()
	log := g.logger()
	if f.failures {
		// The failure runs measure the revision, not the answer: a media
		// task that fails after an early answer (response.early) began is
		// revised too, but with a second answer call, and which comes
		// first is a race the runs' calls and times should not hang on.
		cfg.Response.Early = "off"
	}
	a, err := g.newApp(cfg, app.Options{})
	if err != nil {
		return err
	}
	defer a.Close()
	eng := a.Engine()
	suite, err := loadSuite(f.suite, f.failures, eng)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	for i, w := range suite.Warnings {
		if i == 5 {
			fmt.Fprintf(stderr, "suite: … and %d more warnings\n", len(suite.Warnings)-5)
			break
		}
		fmt.Fprintln(stderr, "suite:", text.Clean(w))
	}
	models := f.models
	if len(models) == 0 {
		models = []string{cfg.Controller.Model}
	}
	engines, err := evalEngines(ctx, cfg, eng, models, log)
	if err != nil {
		return err
	}

	cases := len(suite.Cases)
	if f.limit > 0 && f.limit < cases {
		cases = f.limit
	}
	bar := newEvalProgress(stderr, cases*f.repeat*len(models), cfg.Env["NO_COLOR"] != "")
	if f.failures {
		return evalFailures(ctx, evalRun{f: f, suite: suite, models: models, engines: engines, cases: cases, bar: bar}, stdout)
	}
	tools := eng.Catalog().Names()
	var sums []eval.Summary
	var stopped error
	for i, m := range models {
		results, err := eval.Run(ctx, engines[i], m, suite, eval.Options{
			Repeat: f.repeat, Limit: f.limit, Select: f.sel, Tools: tools,
			Progress: func(p eval.Progress) { bar.step(p) },
		})
		s := eval.Summarize(m, suite.Name, cases, f.repeat, f.sel, results)
		switch {
		case err == nil:
		case errors.Is(err, pipeline.ErrCancelled) || ctx.Err() != nil:
			s.Interrupted = true
			stopped = &exitError{code: 130, err: errors.New("interrupted — the scores above cover the requests that finished")}
		default:
			s.Error = text.OneLine(err.Error(), 0)
			stopped = &exitError{code: 1, err: fmt.Errorf("%s: %w", m, err)}
		}
		sums = append(sums, s)
		if ctx.Err() != nil {
			break
		}
	}
	bar.finish()
	if f.json {
		if err := eval.WriteJSON(jsonWriter{stdout}, sums); err != nil {
			return err
		}
		return stopped
	}
	// Several models: one table, a column each, the best of each row
	// marked — the comparison is the point.
	if err := eval.WriteComparison(stdout, sums); err != nil {
		return err
	}
	return stopped
}

// evalRun is what a run of the suite needs once every model was checked.
type evalRun struct {
	f       *evalFlags
	suite   *eval.Suite
	models  []string
	engines []*pipeline.Engine
	cases   int
	bar     *evalProgress
}

// evalFailures runs the failure suite on every model and writes its table
// (or JSON): the success rate without and with the plan's revision.
func evalFailures(ctx context.Context, r evalRun, stdout io.Writer) error {
	var sums []eval.FailureSummary
	var stopped error
	for i, m := range r.models {
		results, err := eval.RunFailures(ctx, r.engines[i], m, r.suite, eval.FailureOptions{
			Repeat: r.f.repeat, Limit: r.f.limit,
			Progress: func(p eval.Progress) { r.bar.step(p) },
		})
		s := eval.SummarizeFailures(m, r.suite.Name, r.cases, r.f.repeat, results)
		switch {
		case err == nil:
		case errors.Is(err, pipeline.ErrCancelled) || ctx.Err() != nil:
			s.Interrupted = true
			stopped = &exitError{code: 130, err: errors.New("interrupted — the scores above cover the requests that finished")}
		default:
			s.Error = text.OneLine(err.Error(), 0)
			stopped = &exitError{code: 1, err: fmt.Errorf("%s: %w", m, err)}
		}
		sums = append(sums, s)
		if ctx.Err() != nil {
			break
		}
	}
	r.bar.finish()
	write := eval.WriteFailures
	if r.f.json {
		write = eval.WriteFailuresJSON
	}
	if r.f.json {
		stdout = jsonWriter{stdout}
	}
	if err := write(stdout, sums); err != nil {
		return err
	}
	return stopped
}

// loadSuite reads the suite file, or the embedded suite without one (the
// failure suite with failures); task names resolve through the engine's
// catalog.
func loadSuite(path string, failures bool, eng *pipeline.Engine) (*eval.Suite, error) {
	switch {
	case path == "" && failures:
		return eval.Failures()
	case path == "":
		return eval.Builtin()
	}
	cat := eng.Catalog()
	resolve := func(name string) (string, bool) {
		s, _, ok := cat.Resolve(name)
		if !ok {
			return "", false
		}
		return s.Name, true
	}
	s, err := eval.Load(path, resolve)
	if err != nil {
		return nil, fmt.Errorf("--suite: %w", err)
	}
	return s, nil
}

// evalProgress shows how far the evaluation is on stderr, with an
// estimate of the time left: a bar redrawn in place on a terminal, a line
// per request otherwise (a log, CI).
type evalProgress struct {
	w        io.Writer
	total    int
	done     int
	terminal bool
	bar      progress.Model
	plain    bool // NO_COLOR: an ASCII bar
	start    time.Time
	now      func() time.Time
}

func newEvalProgress(w io.Writer, total int, plain bool) *evalProgress {
	p := &evalProgress{w: w, total: total, terminal: isTerminal(w), plain: plain, now: time.Now}
	p.bar = progress.New(progress.WithWidth(30), progress.WithoutPercentage())
	p.start = p.now()
	return p
}

// left estimates the time the remaining runs take at the mean pace so
// far: "" before the first run ends, else "~1m20s left".
func (p *evalProgress) left() string {
	if p.done == 0 || p.done >= p.total {
		return ""
	}
	per := p.now().Sub(p.start) / time.Duration(p.done)
	rest := per * time.Duration(p.total-p.done)
	switch {
	case rest < time.Second:
		return "<1s left"
	case rest < time.Minute:
		return fmt.Sprintf("~%ds left", int(rest.Round(time.Second).Seconds()))
	case rest < time.Hour:
		rest = rest.Round(10 * time.Second)
		return fmt.Sprintf("~%dm%02ds left", int(rest.Minutes()), int(rest.Seconds())%60)
	}
	rest = rest.Round(time.Minute)
	return fmt.Sprintf("~%dh%02dm left", int(rest.Hours()), int(rest.Minutes())%60)
}

func (p *evalProgress) step(ev eval.Progress) {
	p.done++
	left := p.left()
	if !p.terminal {
		line := fmt.Sprintf("eval: %d/%d %s %s", p.done, p.total, text.Clean(ev.Model), text.Clean(ev.Case))
		if left != "" {
			line += " · " + left
		}
		fmt.Fprintln(p.w, line)
		return
	}
	frac := float64(p.done) / float64(max(p.total, 1))
	var bar string
	if p.plain {
		n := int(frac * 30)
		bar = "[" + strings.Repeat("#", n) + strings.Repeat("-", 30-n) + "]"
	} else {
		bar = p.bar.ViewAs(frac)
	}
	// \r and clear-to-end redraw the line in place; the model is clipped
	// so the line stays within 80 columns.
	fmt.Fprintf(p.w, "\r%s %d/%d %s %s\x1b[K", bar, p.done, p.total, left, text.Clean(text.Clip(ev.Model, 20)))
}

func (p *evalProgress) finish() {
	if p.terminal && p.done > 0 {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

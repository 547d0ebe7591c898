package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/text"
)

// printer renders pipeline events for `chorus run` the way command-line
// tools are used in pipelines (mods, `ollama run`): the answer alone on
// stdout, the progress log on stderr — so `chorus run … > answer.md` and
// `chorus run … | less` get just the answer. With --json, stdout is one
// JSON event per line instead and nothing else.
type printer struct {
	out   io.Writer // the answer, or the JSON events
	log   io.Writer // the progress log; io.Discard with --quiet
	json  bool
	debug bool
	// planOnly writes the plan to out (--plan-only without --json).
	planOnly bool
	// render, when set, turns the finished answer's Markdown into what a
	// terminal shows (Glamour); the answer is then printed once, at the
	// end, rather than streamed raw as it is into a pipe or a file.
	render func(markdown string) string

	streaming bool // raw answer tokens are being written to out
	answer    strings.Builder
	shown     bool // the rendered answer was printed
	// warned holds the warnings already printed: one given before the
	// turn (constraints that exclude everything) is not repeated when the
	// turn reports it too.
	warned map[string]bool
	// noModel holds the tasks whose model line already said why no model
	// can run them, so their end says it no more.
	noModel map[int]bool
	// under is the stage whose "── stage" header the log's last lines are
	// under. Stages overlap — a task runs while the controller still
	// chooses another's model — so a line of another stage repeats its
	// header first.
	under pipeline.Stage
	// entered holds the stages the log has been under; pending is a stage
	// announced whose header waits for a line to head (see enter): an
	// empty section is noise.
	entered map[pipeline.Stage]bool
	pending pipeline.Stage
	// streamed holds the plan's tasks the log listed as they arrived
	// (plan_task), by id: the plan's end lists only what they did not say.
	streamed map[int]string
}

// logStage is the stage an event's log line belongs under; "" keeps the
// current one.
func logStage(ev pipeline.Event) pipeline.Stage {
	switch e := ev.(type) {
	case pipeline.PlanEvent:
		return pipeline.StagePlanning
	case pipeline.PlanRevisionEvent:
		return pipeline.StageRevision
	case pipeline.ModelEvent:
		return pipeline.StageSelection
	case pipeline.TaskStartEvent, pipeline.TaskProgressEvent, pipeline.TaskEndEvent, pipeline.HostDownEvent:
		return pipeline.StageExecution
	case pipeline.DebugEvent:
		return e.Stage
	}
	return ""
}

// header prints "── stage" unless the log is under it already.
func (p *printer) header(s pipeline.Stage) {
	if s == "" {
		return
	}
	p.pending = ""
	if s != p.under {
		p.under = s
		if p.entered == nil {
			p.entered = map[pipeline.Stage]bool{}
		}
		p.entered[s] = true
		p.write("── " + string(s))
	}
}

// enter is a stage event. Planning is headed at once the first time (a
// slow plan shows "── planning" while it is written), and the response
// before the answer streams; selection and execution, and a stage the log
// comes back to, only when a line comes under them: with a plan streamed,
// or the controller choosing, they are announced before their lines or
// with none left to come.
func (p *printer) enter(s pipeline.Stage) {
	switch {
	case s == pipeline.StageResponse, s == pipeline.StagePlanning && !p.entered[s]:
		p.header(s)
	case s == p.under:
		p.pending = ""
	default:
		p.pending = s
	}
}

func newPrinter(out, log io.Writer, json, debug bool) *printer {
	return &printer{out: out, log: log, json: json, debug: debug}
}

func (p *printer) emit(ev pipeline.Event) {
	if _, ok := ev.(pipeline.DebugEvent); ok && !p.debug {
		return
	}
	if p.json {
		b, err := pipeline.MarshalEvent(ev)
		if err != nil {
			b, _ = pipeline.MarshalEvent(pipeline.ErrorEvent{Stage: "output", Message: "cannot encode event: " + err.Error()})
		}
		fmt.Fprintf(jsonWriter{p.out}, "%s\n", b)
		return
	}
	p.plain(ev)
}

// note adds a line about the run itself (which session it continues) to
// the progress log; JSON output stays pure events.
func (p *printer) note(format string, args ...any) {
	if !p.json {
		p.line(format, args...)
	}
}

// warn adds a warning to the progress log, once.
func (p *printer) warn(stage pipeline.Stage, msg string) {
	if p.json || p.warned[msg] {
		return
	}
	if p.warned == nil {
		p.warned = map[string]bool{}
	}
	p.warned[msg] = true
	p.line("warning (%s): %s", stage, msg)
}

func (p *printer) line(format string, args ...any) {
	if p.pending != "" {
		p.header(p.pending)
	}
	p.write(fmt.Sprintf(format, args...))
}

func (p *printer) write(s string) {
	fmt.Fprint(p.log, text.Clean(s)+"\n")
}

func (p *printer) plain(ev pipeline.Event) {
	if e, ok := ev.(pipeline.PlanEvent); ok {
		// Its header only with a line under it: a streamed plan's end
		// often adds nothing, and comes after its tasks ran.
		p.planLines(e)
		return
	}
	p.header(logStage(ev))
	switch e := ev.(type) {
	case pipeline.StageEvent:
		p.enter(e.Stage)
	case pipeline.PlanTaskEvent:
		// A task of the plan still being written; it may start at once.
		if p.streamed == nil {
			p.streamed = map[int]string{}
		}
		p.streamed[e.Task.ID] = taskLine(e.Task)
		p.line("plan: + %d. %s", e.Task.ID, taskLine(e.Task))
	case pipeline.PlanRevisionEvent:
		p.revision(e)
	case pipeline.TaskWithdrawnEvent:
		delete(p.streamed, e.ID) // the final plan's task of this id is another
		p.line("withdrawn: task %d %s: %s — its result is not used", e.ID, e.Task, e.Reason)
	case pipeline.ModelReasonEvent:
		p.line("  task %d's model: %s", e.ID, text.OneLine(e.Reason, 160))
	case pipeline.ModelEvent:
		p.modelLine(e)
	case pipeline.TaskStartEvent:
		// Where it starts, as the endpoint resolved it: the model line
		// names a provider only once that is settled.
		if e.Model != "" && e.Endpoint != pipeline.EndpointController {
			p.line("start: task %d %s with %s on %s", e.ID, e.Task, e.Model, pipeline.Where(e.Endpoint, e.Provider))
			break
		}
		p.line("start: task %d %s", e.ID, e.Task)
	case pipeline.TaskProgressEvent:
		p.line("  task %d: %s", e.ID, e.Message)
	case pipeline.TaskEndEvent:
		p.taskEnd(e)
	case pipeline.TokenEvent:
		p.answer.WriteString(e.Text)
		if p.render == nil {
			p.streaming = true
			fmt.Fprint(p.out, text.Clean(e.Text))
		}
	case pipeline.AnswerEvent:
		if p.render != nil {
			p.answer.Reset()
			p.answer.WriteString(e.Text)
		}
		p.finish()
	case pipeline.ErrorEvent:
		if !e.Fatal { // fatal errors are the one-line cause on stderr
			p.warn(e.Stage, e.Message)
		}
	case pipeline.DebugEvent:
		p.line("debug %s %s:\n%s", e.Stage, e.Kind, e.Content)
	case pipeline.QueueEvent:
		if e.Waiting {
			p.line("  %s", pipeline.QueueText(e))
		}
	case pipeline.HostDownEvent:
		p.line("unreachable: %s", pipeline.HostDownText(e))
	}
}

// taskLine is a task of a plan for the log: its name, what it waits for,
// its arguments.
func taskLine(t pipeline.Task) string {
	dep := ""
	if len(t.Dep) > 0 {
		dep = fmt.Sprintf(" after %v", t.Dep)
	}
	return t.Task + dep + " " + formatArgs(t.Args)
}

// planLines prints the plan: its tasks, constraints and notes — and, with
// --plan-only, the plan itself to stdout. A plan whose tasks were listed
// as they streamed adds only what they did not say (a task the final plan
// changed, its constraints, its notes), under "── planning" again only
// when there is such a line.
func (p *printer) planLines(e pipeline.PlanEvent) {
	if prev := p.pending; p.under != pipeline.StagePlanning {
		p.pending = pipeline.StagePlanning
		defer func() {
			if p.pending == pipeline.StagePlanning { // nothing came under it
				p.pending = prev
			}
		}()
	}
	if p.planOnly {
		// With --plan-only the plan is what the run produces: it goes
		// to stdout, as the answer would, in the planner's JSON
		// ({"tasks": […]}), so `> plan.json` and --quiet get it.
		enc := json.NewEncoder(jsonWriter{p.out})
		enc.SetEscapeHTML(false) // <resource>-1 as the planner wrote it
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Tasks []pipeline.Task `json:"tasks"`
		}{Tasks: e.Tasks})
	}
	switch {
	case len(p.streamed) > 0:
		for _, t := range e.Tasks {
			if p.streamed[t.ID] != taskLine(t) {
				p.line("plan: + %d. %s", t.ID, taskLine(t))
			}
		}
	case len(e.Tasks) == 0:
		p.line("plan: no expert tasks — the controller answers directly")
	default:
		p.line("plan: %d task(s)", len(e.Tasks))
		for _, t := range e.Tasks {
			p.line("  %d. %s", t.ID, taskLine(t))
		}
	}
	if !e.Constraints.IsZero() {
		p.line("  constraints: %s", e.Constraints)
	}
	for _, n := range e.Notes {
		if p.warned[n] {
			continue // the warning above said it
		}
		p.line("  note: %s", n)
	}
}

// modelLine prints a task's model choice and why.
func (p *printer) modelLine(e pipeline.ModelEvent) {
	// The controller's reason may come later, as a line of its own
	// (ModelReasonEvent): no dash before nothing meanwhile.
	why := ""
	if r := text.OneLine(e.Reason, 160); r != "" {
		why = " — " + r
	}
	switch {
	case e.Endpoint == pipeline.EndpointController:
		p.line("model: task %d %s → the controller [%s]%s", e.ID, e.Task, e.Decided, why)
	case e.Model == "":
		p.line("model: task %d %s → none: %s", e.ID, e.Task, e.Reason)
		if p.noModel == nil {
			p.noModel = map[int]bool{}
		}
		p.noModel[e.ID] = true
	default:
		p.line("model: task %d %s → %s on %s [%s]%s", e.ID, e.Task, e.Model, pipeline.Where(e.Endpoint, e.Provider), e.Decided, why)
	}
	if e.Unmet != "" {
		p.line("  constraint not applied: %s", text.OneLine(e.Unmet, 200))
	}
}

// taskEnd logs how a task ended: done (with what ran, after which failed
// hops, and its files), cancelled, skipped or failed.
func (p *printer) taskEnd(e pipeline.TaskEndEvent) {
	switch {
	case e.Status == pipeline.StatusOK:
		result := ""
		if e.Result != "" {
			result = ": " + text.OneLine(e.Result, 200)
		}
		after := ""
		if note := pipeline.FallbackNote(e.Attempts); note != "" {
			after = " (" + note + ")"
		}
		p.line("done: task %d %s with %s on %s in %d ms%s%s", e.ID, e.Task, e.Model, pipeline.Where(e.Endpoint, e.Provider), e.ElapsedMS, after, result)
		for _, f := range e.Files {
			p.line("  file: %s", f)
		}
	case e.Cancelled:
		p.line("cancelled: task %d %s", e.ID, e.Task)
	case e.Skipped && p.noModel[e.ID]:
		p.line("skipped: task %d %s: no model (above)", e.ID, e.Task)
	case e.Skipped:
		p.line("skipped: task %d %s: %s", e.ID, e.Task, e.Error)
	default:
		p.line("failed: task %d %s: %s", e.ID, e.Task, e.Error)
	}
}

// revision logs a revision of the plan: what failed, the tasks it added,
// its repairs.
func (p *printer) revision(e pipeline.PlanRevisionEvent) {
	failed := make([]string, len(e.After))
	for i, f := range e.After {
		failed[i] = fmt.Sprintf("task %d %s", f.ID, f.Task)
	}
	if len(e.Tasks) == 0 {
		p.line("revised: after %s failed — the controller found no other way", strings.Join(failed, ", "))
	} else {
		p.line("revised: after %s failed — %d new task(s)", strings.Join(failed, ", "), len(e.Tasks))
	}
	for _, t := range e.Tasks {
		p.line("  %d. %s", t.ID, taskLine(t))
	}
	for _, n := range e.Notes {
		p.line("  note: %s", n)
	}
}

// finish ends the answer: the newline after a streamed one, or the whole
// rendered answer — what had arrived, when the turn was cut short.
func (p *printer) finish() {
	switch {
	case p.streaming:
		fmt.Fprintln(p.out)
		p.streaming = false
	case p.render != nil && !p.shown && strings.TrimSpace(p.answer.String()) != "":
		p.shown = true
		fmt.Fprintln(p.out, p.render(p.answer.String()))
	}
}

func formatArgs(args map[string]string) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + text.OneLine(args[k], 80)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

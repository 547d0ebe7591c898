package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/text"
)

// printer renders pipeline events for `chorus run`: one JSON object per
// line, or a readable log followed by the streamed answer.
type printer struct {
	w        io.Writer
	json     bool
	debug    bool
	inAnswer bool
}

func newPrinter(w io.Writer, json, debug bool) *printer {
	return &printer{w: w, json: json, debug: debug}
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
		fmt.Fprintf(p.w, "%s\n", b)
		return
	}
	p.plain(ev)
}

// note adds a line about the run itself (which session it continues) to
// the plain log; JSON output stays pure events.
func (p *printer) note(format string, args ...any) {
	if !p.json {
		p.line(format, args...)
	}
}

func (p *printer) line(format string, args ...any) {
	if p.inAnswer {
		fmt.Fprintln(p.w)
		p.inAnswer = false
	}
	fmt.Fprint(p.w, text.Clean(fmt.Sprintf(format, args...))+"\n")
}

func (p *printer) plain(ev pipeline.Event) {
	switch e := ev.(type) {
	case pipeline.StageEvent:
		p.line("── %s", e.Stage)
	case pipeline.PlanEvent:
		if len(e.Tasks) == 0 {
			p.line("plan: no expert tasks — the controller answers directly")
		} else {
			p.line("plan: %d task(s)", len(e.Tasks))
		}
		for _, t := range e.Tasks {
			dep := ""
			if len(t.Dep) > 0 {
				dep = fmt.Sprintf(" after %v", t.Dep)
			}
			p.line("  %d. %s%s %s", t.ID, t.Task, dep, formatArgs(t.Args))
		}
		if !e.Constraints.IsZero() {
			p.line("  constraints: %s", e.Constraints)
		}
		for _, n := range e.Notes {
			p.line("  note: %s", n)
		}
	case pipeline.ModelEvent:
		switch {
		case e.Endpoint == pipeline.EndpointController:
			p.line("model: task %d %s → the controller [%s]", e.ID, e.Task, e.Decided)
		case e.Model == "":
			p.line("model: task %d %s → none: %s", e.ID, e.Task, e.Reason)
		default:
			p.line("model: task %d %s → %s on %s [%s] — %s", e.ID, e.Task, e.Model, pipeline.Where(e.Endpoint, e.Provider), e.Decided, text.OneLine(e.Reason, 160))
		}
	case pipeline.TaskStartEvent:
		p.line("start: task %d %s", e.ID, e.Task)
	case pipeline.TaskProgressEvent:
		p.line("  task %d: %s", e.ID, e.Message)
	case pipeline.TaskEndEvent:
		switch {
		case e.Status == pipeline.StatusOK:
			result := ""
			if e.Result != "" {
				result = ": " + text.OneLine(e.Result, 200)
			}
			p.line("done: task %d %s with %s on %s in %d ms%s", e.ID, e.Task, e.Model, pipeline.Where(e.Endpoint, e.Provider), e.ElapsedMS, result)
			for _, f := range e.Files {
				p.line("  file: %s", f)
			}
		case e.Skipped:
			p.line("skipped: task %d %s: %s", e.ID, e.Task, e.Error)
		default:
			p.line("failed: task %d %s: %s", e.ID, e.Task, e.Error)
		}
	case pipeline.TokenEvent:
		if !p.inAnswer {
			fmt.Fprintln(p.w)
			p.inAnswer = true
		}
		fmt.Fprint(p.w, text.Clean(e.Text))
	case pipeline.AnswerEvent:
		if p.inAnswer {
			fmt.Fprintln(p.w)
			p.inAnswer = false
		}
	case pipeline.ErrorEvent:
		if !e.Fatal { // fatal errors are the one-line cause on stderr
			p.line("warning (%s): %s", e.Stage, e.Message)
		}
	case pipeline.DebugEvent:
		p.line("debug %s %s:\n%s", e.Stage, e.Kind, e.Content)
	}
}

func (p *printer) finish() {
	if p.inAnswer {
		fmt.Fprintln(p.w)
		p.inAnswer = false
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

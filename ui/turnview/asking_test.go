package turnview

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/theme"
)

// TestATaskWaitingForYouSaysSo: a tool waiting for the user's approval
// does not run: its task shows no spinner and no running clock, but
// "waiting for you", in the Plan and Execution panes; once answered it
// runs (and is timed) again.
func TestATaskWaitingForYouSaysSo(t *testing.T) {
	t.Parallel()
	st := theme.NewStyles()
	tr := NewTurnState(1, "req", nil, "qwen3:8b", fixedNow)
	tr.Apply(pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "everything.get-sum", Args: map[string]string{"a": "2"}}}}, fixedNow)
	tr.Apply(pipeline.TaskStartEvent{ID: 1, Task: "everything.get-sum", Model: "everything.get-sum", Endpoint: "mcp"}, fixedNow)
	tr.Asking(1, true)
	later := fixedNow.Add(7 * time.Second)
	pc := RenderContext{Styles: &st, Turn: tr, Now: later, Width: 60}
	for name, lines := range map[string]string{"plan": plainLines(PlanLines(pc)), "execution": plainLines(ExecLines(pc))} {
		if !strings.Contains(lines, "waiting for you") {
			t.Errorf("the %s pane does not say the task waits for you:\n%s", name, lines)
		}
		if strings.Contains(lines, "7.0s") || slices.ContainsFunc(spinnerFrames, func(f string) bool { return strings.Contains(lines, f) }) {
			t.Errorf("the %s pane shows a running task:\n%s", name, lines)
		}
	}
	if waiting, held := tr.Waiting(); !waiting || !held {
		t.Errorf("one task, waiting: Waiting() = %v, %v", waiting, held)
	}
	tr.Apply(pipeline.TaskStartEvent{ID: 2, Task: "text-to-image", Model: "m", Endpoint: "huggingface"}, fixedNow)
	if waiting, held := tr.Waiting(); !waiting || held {
		t.Errorf("another task runs meanwhile: Waiting() = %v, %v; the turn is not held", waiting, held)
	}
	tr.Asking(1, false)
	if exec := plainLines(ExecLines(pc)); strings.Contains(exec, "waiting for you") || !strings.Contains(exec, "7.0s") {
		t.Errorf("answered, the task runs again:\n%s", exec)
	}
	tr.Asking(9, true) // a task the turn does not have: nothing happens
}

// TestModelsPaneKeepsTheProvider: in the right column of a 160-column
// terminal (63 columns of pane) and narrower, a long model id and its
// reason never clip away where the model runs: the reason gives way to
// the next line, and the model id to its name without the owner.
func TestModelsPaneKeepsTheProvider(t *testing.T) {
	t.Parallel()
	st := theme.NewStyles()
	tr := NewTurnState(1, "req", nil, "qwen3:8b", fixedNow)
	tr.Apply(pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-image"}, {ID: 2, Task: "image-to-text"}}}, fixedNow)
	tr.Apply(pipeline.ModelEvent{ID: 1, Task: "text-to-image", Model: "stabilityai/stable-diffusion-xl-base-1.0", Endpoint: "huggingface", Provider: "fal-ai",
		Decided: "controller choice", Reason: "the most downloaded text-to-image model that fal-ai serves"}, fixedNow)
	tr.Apply(pipeline.ModelEvent{ID: 2, Task: "image-to-text", Model: "Salesforce/blip-image-captioning-large-with-a-much-longer-name", Endpoint: "huggingface", Provider: "hf-inference",
		Decided: "controller choice", Reason: "captions"}, fixedNow)
	for _, w := range []int{63, 50, 43} {
		pc := RenderContext{Styles: &st, Turn: tr, Now: fixedNow, Width: w}
		lines := plainLines(ModelLines(pc))
		for _, want := range []string{"huggingface (fal-ai)", "huggingface (hf-inference)", "the most downl"} {
			if !strings.Contains(lines, want) {
				t.Errorf("at %d columns the Models pane lacks %q:\n%s", w, want, lines)
			}
		}
	}
}

package turnview

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/pipeline/pipelinetest"
	"github.com/chorusai/chorus/ui/theme"
)

// A turn driven by synthetic events, as the pipeline would send them.
func syntheticTurn(now time.Time) *TurnState {
	t := NewTurnState(1, "req", nil, "qwen3:8b", now)
	for _, ev := range pipelinetest.ImageTurn() {
		t.Apply(ev, now)
	}
	return t
}

func plainLines(lines []string) string { return ansi.Strip(strings.Join(lines, "\n")) }

func TestPanesFollowTheTurn(t *testing.T) {
	st := theme.NewStyles()
	now := fixedNow
	tr := syntheticTurn(now)
	pc := RenderContext{Styles: &st, Turn: tr, Now: now.Add(5 * time.Second), Width: 70}

	plan := plainLines(PlanLines(pc))
	for _, want := range []string{"1 text-to-image", "├─· 2 object-detection", "image=→#1", "└─· 4 draw-boxes (also after #1)",
		"text=→#2", "note: task 5 dropped"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan pane lacks %q:\n%s", want, plan)
		}
	}
	if !strings.Contains(plan, spinnerAt(pc.Now)+" 1 text-to-image") {
		t.Errorf("a running task shows the spinner:\n%s", plan)
	}
	if strings.Count(plan, "→#1") != 3 {
		t.Errorf("both <resource>-1 and <GENERATED>-1 should show as →#1:\n%s", plan)
	}

	// Every task's choice first, one line each; the exclusions a count.
	models := plainLines(ModelLines(pc))
	for _, want := range []string{"#1 text-to-image → stabilityai/sdxl · huggingface · best quality for",
		"#4 draw-boxes → " + spinnerAt(pc.Now) + " choosing…", "1 model excluded · the expand key shows why"} {
		if !strings.Contains(models, want) {
			t.Errorf("models pane lacks %q:\n%s", want, models)
		}
	}
	if strings.Contains(models, "big/model") {
		t.Errorf("collapsed models pane lists an excluded model:\n%s", models)
	}
	pc.Expanded, pc.ExpandKey = true, "f6"
	models = plainLines(ModelLines(pc))
	for _, want := range []string{"#1 text-to-image · controller choice", "best quality for photos",
		"also: runwayml/sd-1.5", "✗ big/model: licence cc-by-nc", "f6 collapses"} {
		if !strings.Contains(models, want) {
			t.Errorf("expanded models pane lacks %q:\n%s", want, models)
		}
	}
	pc.Expanded = false

	exec := plainLines(ExecLines(pc))
	for _, want := range []string{"#1 text-to-image 5.0s stabilityai/sdxl", "model is loading", "model loading — 12s left"} {
		if !strings.Contains(exec, want) {
			t.Errorf("execution pane lacks %q:\n%s", want, exec)
		}
	}

	// The task ends, its dependant fails, the others never run.
	for _, ev := range []pipeline.Event{
		pipeline.TaskProgressEvent{ID: 1, Message: "first: huggingface failed (503) → sdxl", Fallback: true},
		pipeline.TaskEndEvent{ID: 1, Task: "text-to-image", Status: pipeline.StatusOK, Model: "stabilityai/sdxl",
			Endpoint: "huggingface", Result: "a fox", Files: []string{"/out/fox.png"}, ElapsedMS: 8200,
			Attempts: []pipeline.Attempt{{Model: "x/first", Endpoint: "huggingface", Error: "HTTP 503"}, {Model: "stabilityai/sdxl", Endpoint: "huggingface"}}},
		pipeline.TaskEndEvent{ID: 2, Task: "object-detection", Status: pipeline.StatusError, Error: "HTTP 500: CUDA out of memory — try again later"},
		pipeline.TaskEndEvent{ID: 4, Task: "draw-boxes", Status: pipeline.StatusError, Skipped: true, Error: "dependency 2 failed"},
	} {
		tr.Apply(ev, now)
	}
	tr.Finish(nil, nil, now)
	plan = plainLines(PlanLines(pc))
	for _, want := range []string{"✓ 1 text-to-image", "✗ 2 object-detection", "⊘ 4 draw-boxes", "⊘ 3 image-to-text"} {
		if !strings.Contains(plan, want) {
			t.Errorf("finished plan lacks %q:\n%s", want, plan)
		}
	}
	exec = plainLines(ExecLines(pc))
	for _, want := range []string{"✓ #1 text-to-image 8.2s", "→ a fox", "first: huggingface failed (503) → sdxl", "made image: /out/fox.png",
		"HTTP 500: CUDA out of memory — try again later", "skipped: dependency 2 failed"} {
		if !strings.Contains(exec, want) {
			t.Errorf("finished execution lacks %q:\n%s", want, exec)
		}
	}
	if strings.Contains(exec, "left") {
		t.Error("the countdown should end with the task")
	}
}

// fixedNow is the clock of these tests: spinners and countdowns render the
// same on every run.
var fixedNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// TestCancelledTasksAreNotFailures: tasks the user's cancel stopped —
// reported so by the pipeline, or still pending when the turn ended —
// show as cancelled, not as failed or skipped.
func TestCancelledTasksAreNotFailures(t *testing.T) {
	st := theme.NewStyles()
	tr := syntheticTurn(fixedNow)
	tr.Apply(pipeline.TaskEndEvent{ID: 1, Task: "text-to-image", Status: pipeline.StatusError, Cancelled: true, Error: "cancelled", Model: "stabilityai/sdxl"}, fixedNow)
	tr.Finish(nil, pipeline.ErrCancelled, fixedNow)
	for _, ts := range tr.Tasks {
		if ts.Status != TaskCancelled {
			t.Errorf("task %d: status %v, want cancelled", ts.Task.ID, ts.Status)
		}
	}
	pc := RenderContext{Styles: &st, Turn: tr, Now: fixedNow, Width: 70}
	exec := plainLines(ExecLines(pc))
	if !strings.Contains(exec, "⊝ #1 text-to-image 0ms cancelled stabilityai/sdxl") || strings.Contains(exec, "✗") || strings.Contains(exec, "skipped") {
		t.Errorf("execution pane:\n%s", exec)
	}
	plan := plainLines(PlanLines(pc))
	if strings.Count(plan, "⊝") != 4 {
		t.Errorf("plan pane:\n%s", plan)
	}
}

// TestExecutionSaysWhereATaskReallyRan: a task that started on one model or
// provider and finished on another (a fallback, a provider handing over)
// says where it ran; one that finished where it started says nothing more.
func TestExecutionSaysWhereATaskReallyRan(t *testing.T) {
	st := theme.NewStyles()
	tr := syntheticTurn(fixedNow)
	tr.Apply(pipeline.TaskEndEvent{ID: 1, Task: "text-to-image", Status: pipeline.StatusOK, Model: "runwayml/sd-1.5", Endpoint: "huggingface", Provider: "hf-inference"}, fixedNow)
	tr.Apply(pipeline.TaskStartEvent{ID: 2, Task: "object-detection", Model: "facebook/detr", Endpoint: "huggingface", Provider: "hf-inference"}, fixedNow)
	tr.Apply(pipeline.TaskEndEvent{ID: 2, Task: "object-detection", Status: pipeline.StatusOK, Model: "facebook/detr", Endpoint: "huggingface", Provider: "hf-inference"}, fixedNow)
	exec := plainLines(ExecLines(RenderContext{Styles: &st, Turn: tr, Now: fixedNow, Width: 90}))
	if !strings.Contains(exec, "ran on runwayml/sd-1.5 (huggingface (hf-inference))") {
		t.Errorf("task 1 fell back but the pane does not say where it ran:\n%s", exec)
	}
	if strings.Count(exec, "ran on") != 1 {
		t.Errorf("task 2 ran where it started; no second line expected:\n%s", exec)
	}
}

// TestModelsPaneSaysAConstraintWasNotApplied: a best= constraint no
// candidate could honour shows in the Models pane, briefly when collapsed
// and in full when expanded.
func TestModelsPaneSaysAConstraintWasNotApplied(t *testing.T) {
	st := theme.NewStyles()
	now := fixedNow
	tr := NewTurnState(1, "req", nil, "qwen3:8b", now)
	tr.Apply(pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "/a.png"}}}}, now)
	tr.Apply(pipeline.ModelEvent{ID: 1, Task: "image-to-text", Model: "Salesforce/blip", Endpoint: "huggingface", Decided: "top-ranked",
		Reason: "most downloaded", Unmet: "no candidate reports cider coco — fell back to downloads"}, now)
	pc := RenderContext{Styles: &st, Turn: tr, Now: now, Width: 100, ExpandKey: "f6"}
	if models := plainLines(ModelLines(pc)); !strings.Contains(models, "Salesforce/blip · huggingface · constraint not applied · most") {
		t.Errorf("collapsed models pane:\n%s", models)
	}
	pc.Expanded = true
	if models := plainLines(ModelLines(pc)); !strings.Contains(models, "constraint not applied: no candidate reports cider coco") {
		t.Errorf("expanded models pane:\n%s", models)
	}
}

// Tasks arrive while the plan streams and may run before it ends: the plan
// pane shows them at once, the final plan keeps what they did, a withdrawn
// task goes, and reasons written after the picks fill in the models pane.
func TestPlanPaneFillsWhileThePlanStreams(t *testing.T) {
	st := theme.NewStyles()
	now := fixedNow
	tr := NewTurnState(1, "req", nil, "qwen3:8b", now)
	first := pipeline.Task{ID: 1, Task: "image-classification", Dep: []int{}, Args: map[string]string{"image": "/tmp/a.png"}}
	second := pipeline.Task{ID: 2, Task: "object-detection", Dep: []int{}, Args: map[string]string{"image": "/tmp/a.png"}}
	pc := RenderContext{Styles: &st, Turn: tr, Now: now, Width: 70}
	for _, ev := range []pipeline.Event{
		pipeline.StageEvent{Stage: pipeline.StagePlanning},
		pipeline.PlanTaskEvent{Task: first},
		pipeline.ModelEvent{ID: 1, Task: first.Task, Model: "google/vit", Endpoint: "huggingface", Decided: "controller choice"},
		pipeline.TaskStartEvent{ID: 1, Task: first.Task, Model: "google/vit", Endpoint: "huggingface"},
		pipeline.PlanTaskEvent{Task: second},
	} {
		tr.Apply(ev, now)
	}
	plan := plainLines(PlanLines(pc))
	for _, want := range []string{"1 image-classification", "2 object-detection", "planning…"} {
		if !strings.Contains(plan, want) {
			t.Errorf("streaming plan pane lacks %q:\n%s", want, plan)
		}
	}
	tr.Apply(pipeline.TaskEndEvent{ID: 1, Task: first.Task, Status: pipeline.StatusOK, Result: "a tabby cat", Model: "google/vit", Endpoint: "huggingface"}, now)
	tr.Apply(pipeline.TaskWithdrawnEvent{ID: 2, Task: second.Task, Reason: "the final plan changed it"}, now)
	changed := second
	changed.Args = map[string]string{"image": "/tmp/b.png"}
	tr.Apply(pipeline.PlanEvent{Tasks: []pipeline.Task{first, changed}}, now)
	if tr.Planning || len(tr.Tasks) != 2 {
		t.Fatalf("after the final plan: planning=%v tasks=%d", tr.Planning, len(tr.Tasks))
	}
	if ts := tr.Task(1, ""); ts.Status != TaskDone || ts.Result != "a tabby cat" || ts.Choice == nil {
		t.Fatalf("task 1 lost what it did before the final plan: %+v", ts)
	}
	if ts := tr.Task(2, ""); ts.Status != TaskPending || ts.Task.Args["image"] != "/tmp/b.png" {
		t.Fatalf("task 2 should start afresh from the final plan: %+v", ts)
	}
	if plan := plainLines(PlanLines(pc)); strings.Contains(plan, "planning…") {
		t.Errorf("the final plan still shows the planning line:\n%s", plan)
	}
	tr.Apply(pipeline.ModelReasonEvent{ID: 1, Reason: "most downloads for photos"}, now)
	if got := tr.Task(1, "").Choice.Reason; got != "most downloads for photos" {
		t.Fatalf("reason = %q", got)
	}
	if models := plainLines(ModelLines(pc)); !strings.Contains(models, "most downloads f") {
		t.Errorf("models pane lacks the late reason:\n%s", models)
	}
}

// TestPanesShowARevisedPlan: the plan pane marks the branch a revision
// replaced — the failed task and the one skipped for it — and shows the
// revision's tasks after the plan's, under what they answer; the Models
// and Execution panes list them as any task.
func TestPanesShowARevisedPlan(t *testing.T) {
	st := theme.NewStyles()
	now := fixedNow
	tr := NewTurnState(1, "req", nil, "qwen3:8b", now)
	for _, ev := range pipelinetest.RevisedTurn() {
		tr.Apply(ev, now)
	}
	pc := RenderContext{Styles: &st, Turn: tr, Now: now.Add(time.Second), Width: 80}
	lines := strings.Split(plainLines(PlanLines(pc)), "\n")
	find := func(want string) int {
		for i, l := range lines {
			if strings.Contains(l, want) {
				return i
			}
		}
		t.Fatalf("plan pane lacks %q:\n%s", want, strings.Join(lines, "\n"))
		return -1
	}
	failed, skipped := find("✗ 1 image-to-text ↻ replaced"), find("⊘ 2 text-to-speech ↻ replaced")
	head := find("↻ revised after #1 image-to-text failed")
	if got := strings.TrimSpace(lines[head]); got != "↻ revised after #1 image-to-text failed — 2 new tasks" {
		t.Errorf("the revision's head = %q: it says what it added, and no ':' before nothing", got)
	}
	vqa, tts := find("✓ 3 visual-question-answering"), find("4 text-to-speech")
	find("note: task 1 (visual-question-answering) of the revision took the id")
	if !(failed < skipped && skipped < head && head < vqa && vqa < tts) {
		t.Fatalf("plan pane out of order:\n%s", strings.Join(lines, "\n"))
	}
	if strings.Contains(lines[vqa], "replaced") || !strings.HasPrefix(lines[tts], "└─") {
		t.Fatalf("the revision's tasks: %q / %q", lines[vqa], lines[tts])
	}
	models := plainLines(ModelLines(pc))
	exec := plainLines(ExecLines(pc))
	for _, want := range []string{"#3 visual-question-answering → vilt", "#4 text-to-speech → espeak-ng"} {
		if !strings.Contains(models, want) {
			t.Errorf("models pane lacks %q:\n%s", want, models)
		}
	}
	for _, want := range []string{"#3 visual-question-answering", "#4 text-to-speech"} {
		if !strings.Contains(exec, want) {
			t.Errorf("execution pane lacks %q:\n%s", want, exec)
		}
	}

	// An empty revision says so.
	tr = NewTurnState(2, "req", nil, "qwen3:8b", now)
	tr.Apply(pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-video"}}}, now)
	tr.Apply(pipeline.TaskEndEvent{ID: 1, Task: "text-to-video", Status: pipeline.StatusError, Error: "404"}, now)
	tr.Apply(pipeline.PlanRevisionEvent{Revision: pipeline.Revision{After: []pipeline.FailedTask{{ID: 1, Task: "text-to-video"}}, Tasks: []pipeline.Task{}}}, now)
	pc.Turn = tr
	if plan := plainLines(PlanLines(pc)); !strings.Contains(plan, "↻ revised after #1 text-to-video failed — no other way found") {
		t.Fatalf("plan pane:\n%s", plan)
	}
}

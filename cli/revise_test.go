package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/eval"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// TestRunRevisedPlan: `chorus run` with planner.revise at its default —
// the video model is down, the controller revises the plan to a still
// image. The progress log says so under "── revision", --json carries a
// plan_revision event, and the saved session and its export keep it.
func TestRunRevisedPlan(t *testing.T) {
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) {
		case string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-video","id":1,"dep":[],"args":{"text":"a fox in the snow"}}]}`}
		case string(pipeline.StageRevision):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-image","id":2,"dep":[],"args":{"text":"a fox in the snow"}}]}`}
		case string(pipeline.StageSelection):
			return fakeollama.Reply{Content: `{"picks":{},"reasons":{}}`}
		}
		return fakeollama.Reply{Content: "No video model answered, so here is a picture."}
	})
	// No text-to-video model is served; text-to-image is.
	e.serveSkill("text-to-image")
	// A lone video task would let the answer start at once (response.early)
	// and its failure would get a correction line, not a revision: the
	// early answer is off here so the revision can come first.
	t.Setenv("CHORUS_RESPONSE_EARLY", "false")

	stdout, stderr, code := runCLI("run", "--out", e.out, "make a short video of a fox in the snow")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"failed: task 1 text-to-video", "── revision\nrevised: after task 1 text-to-video failed — 1 new task(s)\n  2. text-to-image {text=a fox in the snow}",
		"done: task 2 text-to-image"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "Revised after task 1 (text-to-video) failed") {
		t.Errorf("the answer's workflow does not say the revision:\n%s", stdout)
	}
	latest, err := sessions.Store{}.Latest()
	if err != nil || latest == nil || len(latest.Turns) != 1 {
		t.Fatalf("saved session: %v %+v", err, latest)
	}
	turn := latest.Turns[0]
	if len(turn.Revisions) != 1 || turn.Revisions[0].Tasks[0].Task != "text-to-image" || turn.Report == nil || len(turn.Report.Revisions) != 1 ||
		len(turn.Generated()) != 1 {
		t.Fatalf("saved turn: revisions %+v, generated %v", turn.Revisions, turn.Generated())
	}
	if md := sessions.Export(latest); !strings.Contains(md, "**Plan revised:** revised after task 1 (text-to-video) failed") {
		t.Errorf("export:\n%s", md)
	}

	stdout, stderr, code = runCLI("run", "--json", "--no-save", "--out", e.out, "make a short video of a fox in the snow")
	if code != 0 {
		t.Fatalf("--json exit %d: %s", code, stderr)
	}
	var types []string
	for _, ev := range jsonLines(t, stdout) {
		types = append(types, ev["type"].(string))
		if ev["type"] == "plan_revision" {
			after := ev["after"].([]any)[0].(map[string]any)
			tasks := ev["tasks"].([]any)
			if after["id"].(float64) != 1 || len(tasks) != 1 || tasks[0].(map[string]any)["task"] != "text-to-image" {
				t.Errorf("plan_revision = %v", ev)
			}
		}
	}
	if i := slices.Index(types, "plan_revision"); i < 0 || i < slices.Index(types, "task_end") || i > slices.Index(types, "answer") ||
		types[i-1] != "stage" || !slices.Contains(types[i:], "task_start") {
		t.Errorf("--json events: %v", types)
	}
}

// TestEvalFailures: `chorus eval --failures` runs the failure suite as
// whole turns with scripted failing experts and reports the success rate
// without and with the plan's revision, as a table and as JSON.
func TestEvalFailures(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "down.json")
	if err := os.WriteFile(suite, []byte(`{"name": "down", "cases": [
		{"id": "video-down", "request": "Make a short video of a fox.", "gold": [{"task": "text-to-video", "id": 1, "dep": []}],
		 "fail": ["text-to-video"], "serves": [["text-to-video"], ["text-to-image"]]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) {
		case string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-video","id":1,"dep":[],"args":{"text":"a fox"}}]}`}
		case string(pipeline.StageRevision):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-image","id":2,"dep":[],"args":{"text":"a fox"}}]}`}
		case string(pipeline.StageSelection):
			return fakeollama.Reply{Content: `{"picks":{},"reasons":{}}`}
		}
		return fakeollama.Reply{Content: "Here is a picture of a fox."}
	})
	stdout, stderr, code := runCLI("eval", "--failures", "--suite", suite)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []string
	for _, l := range strings.Split(stdout, "\n") {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	for _, want := range []string{"served without revision 0%", "served with revision 100%", "gained by revision +100 pt", "video-down 0→1/1"} {
		if !slices.Contains(rows, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	t.Setenv("CHORUS_PLANNER_REVISE", "0")
	if _, stderr, code := runCLI("eval", "--failures", "--suite", suite); code != 2 || !strings.Contains(stderr, "planner.revise is 0") {
		t.Fatalf("--failures with planner.revise 0: exit %d: %s", code, stderr)
	}
	t.Setenv("CHORUS_PLANNER_REVISE", "1")
	stdout, stderr, code = runCLI("eval", "--failures", "--json", "--suite", suite)
	if code != 0 {
		t.Fatalf("--json exit %d: %s", code, stderr)
	}
	var doc struct {
		Models []eval.FailureSummary `json:"models"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Models) != 1 {
		t.Fatalf("JSON: %v\n%s", err, stdout)
	}
	if m := doc.Models[0]; m.ServedWith != (eval.Rate{Hits: 1, Of: 1}) || m.ServedWithout != (eval.Rate{Of: 1}) ||
		len(m.Results) != 1 || !slices.Equal(m.Results[0].Added, []string{"text-to-image"}) {
		t.Fatalf("JSON summary = %+v", m)
	}
}

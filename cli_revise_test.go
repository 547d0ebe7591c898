package main

import (
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

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
	if !strings.Contains(strings.Join(types, " "), "task_end stage plan_revision") {
		t.Errorf("--json events: %v", types)
	}
}

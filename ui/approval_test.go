package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/turnview"
)

// guardedTool is an MCP-like tool that is not annotated read-only: it
// counts its runs.
type guardedTool struct{ runs atomic.Int32 }

func (g *guardedTool) Kind() skills.EndpointKind                   { return skills.EndpointMCP }
func (g *guardedTool) Check(context.Context, string, string) error { return nil }
func (g *guardedTool) Remote(string, string) string                { return "" }
func (g *guardedTool) NeedsApproval(string, string) string {
	return "it is not annotated read-only, so it may change things"
}
func (g *guardedTool) Infer(context.Context, endpoints.Request) (endpoints.Result, error) {
	g.runs.Add(1)
	return endpoints.Result{Text: "toggled"}, nil
}

// TestToolApprovalAsks: a tool that may change things opens a question
// with the tool, why and its arguments; n fails its task ("you declined
// it"), a runs it and stops asking for the rest of the chat.
func TestToolApprovalAsks(t *testing.T) {
	env := newTestEnv(t)
	tool := &guardedTool{}
	cat := env.eng.Catalog()
	cat.Put(&skills.Skill{Name: "demo.toggle", Description: "Toggles the thing.", Outputs: []skills.Modality{skills.Text},
		Args:   []skills.Arg{{Name: "mode", Type: skills.Text}},
		Tool:   &skills.Tool{Server: "demo", Name: "toggle", Params: map[string]skills.Param{"mode": {Property: "mode"}}},
		Models: []skills.Model{{ID: "demo.toggle", Endpoints: []skills.EndpointKind{skills.EndpointMCP}}}})
	env.eng = pipeline.New(env.eng.Controller(), cat, endpoints.NewRouter(endpoints.ModeLocal, tool), env.eng.Options())
	env.script.plan = `{"tasks":[{"task":"demo.toggle","id":1,"dep":[],"args":{"mode":"on"}}]}`
	env.script.answer = "Done."
	s := startSession(t, env.model(t), 100, 30)
	s.ready()

	asking := func(n int) func(*Model) bool {
		return func(m *Model) bool { _, ok := m.dialog.(*dialog.Ask); return ok && len(m.turns) == n }
	}
	s.submit("toggle it on")
	s.wait("the question", asking(1))
	frame := s.snapshot()
	for _, want := range []string{"Run demo.toggle?", "not annotated read-only", "mode", "y run it"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the question lacks %q:\n%s", want, frame)
		}
	}
	waiting := func(want bool) func(*Model) bool {
		return func(m *Model) bool {
			ts := m.turns[len(m.turns)-1].Tasks
			return len(ts) == 1 && ts[0].Asking == want
		}
	}
	s.wait("the task waiting for you", waiting(true))
	if status := s.snapshot(); !strings.Contains(status, "waiting for you") || strings.Contains(status, "⏱") {
		t.Errorf("while the question waits the status line runs a clock:\n%s", status)
	}
	s.typeText("n")
	s.wait("the declined turn", turnsDone(1))
	s.wait("the task no longer waiting", waiting(false))

	s.submit("toggle it on, really")
	s.wait("the second question", asking(2))
	s.typeText("a")
	s.wait("the second turn", turnsDone(2))
	s.submit("and again")
	s.wait("the third turn", turnsDone(3))
	m := s.finish()

	if ts := m.turns[0].Tasks; len(ts) != 1 || ts[0].Status == turnview.TaskDone || !strings.Contains(ts[0].Err, "you declined it") {
		t.Errorf("turn 1: %+v", ts)
	}
	for i := 1; i < 3; i++ {
		if ts := m.turns[i].Tasks; len(ts) != 1 || ts[0].Status != turnview.TaskDone {
			t.Errorf("turn %d: %+v", i+1, ts)
		}
	}
	if n := tool.runs.Load(); n != 2 {
		t.Errorf("the tool ran %d times, want 2", n)
	}
}

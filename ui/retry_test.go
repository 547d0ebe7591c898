package ui

import (
	"strings"
	"testing"
)

// TestRetryOfASavedTurnAttachesNothing (issue 25, 6): /retry of a turn read
// from the session file runs its request without the files the file lists
// as attached — data from disk, which grants nothing — and says how to
// attach them again; a turn run here is retried with its attachments
// (TestPlanRetryDebugCommands).
func TestRetryOfASavedTurnAttachesNothing(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Converted."
	opts := env.options(t)
	m1, _ := New(opts)
	s := startSession(t, m1, 100, 30)
	s.ready()
	s.submit("convert @" + env.image)
	s.wait("the turn", turnsDone(1))
	m1 = s.finish()
	m1.shutdown()

	opts.Resume = "latest"
	m2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.turns) != 1 || len(m2.turns[0].Attachments) != 1 {
		t.Fatalf("the saved turn: %+v", m2.turns)
	}
	s2 := startSession(t, m2, 100, 30)
	s2.ready()
	s2.submit("/retry")
	s2.wait("the retried turn", turnsDone(2))
	m2 = s2.finish()
	m2.shutdown()
	if got := m2.turns[1]; got.Request != m2.turns[0].Request || len(got.Attachments) != 0 {
		t.Errorf("the retry of a saved turn = %q with %v, want its request without attachments", got.Request, got.Attachments)
	}
	if !strings.Contains(m2.notice.text, "attach them again (@path)") {
		t.Errorf("the notice should say how to attach them again: %q", m2.notice.text)
	}
}

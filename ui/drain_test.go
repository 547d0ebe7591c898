package ui

import (
	"strings"
	"testing"
	"time"
)

// TestDrainLetsTheTurnFinish: told its server is restarting mid-turn, the
// chat says the turn finishes first, refuses a new request with the
// reason, and the turn goes on to its whole answer — not cancelled. An
// idle chat is told it closes in a moment.
func TestDrainLetsTheTurnFinish(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "The whole answer arrives before the restart."
	env.script.chunkDelay = 50 * time.Millisecond
	env.script.responding = make(chan struct{})
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("a question")
	<-env.script.responding
	s.tm.Send(drainMsg{})
	s.wait("the restart notice", func(m *Model) bool {
		last := m.chat.Last()
		return m.running() && last != nil && last.Text == drainBusyText
	})
	s.submit("another question")
	s.wait("the refusal", func(m *Model) bool { return m.notice.text == drainRefusal })
	s.wait("the turn's end", turnsDone(1))
	m := s.finish()
	if len(m.turns) != 1 || m.turns[0].Canceled || m.turns[0].Err != nil || !strings.Contains(m.turns[0].Answer, "before the restart") {
		t.Fatalf("turns %d; the turn: cancelled %v, err %v, answer %q", len(m.turns), m.turns[0].Canceled, m.turns[0].Err, m.turns[0].Answer)
	}

	idle := startSession(t, env.model(t), 100, 30)
	idle.ready()
	idle.tm.Send(drainMsg{})
	idle.wait("the idle notice", func(m *Model) bool { last := m.chat.Last(); return last != nil && last.Text == drainIdleText })
	idle.finish()
}

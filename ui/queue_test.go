package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/controller"
)

// Two chats on one server with one controller slot: while the first
// chat's answer holds it, the second chat's status line says it waits for
// the controller, and Ctrl+C takes it out of the queue at once — the
// first chat's answer still streaming.
func TestStatusLineWaitsForTheControllerAndCtrlCLeaves(t *testing.T) {
	env := newTestEnv(t)
	ctl, err := controller.New(env.ollama.URL, "qwen3:8b", controller.Options{Timeout: guard, MaxConcurrent: 1})
	if err != nil {
		t.Fatal(err)
	}
	env.eng = env.eng.WithController(ctl)
	env.script.answer, env.script.stall = "Streaming a long answer", true
	env.script.responding = make(chan struct{})

	a := startSession(t, env.model(t), 120, 30)
	a.ready()
	a.submit("first chat")
	<-env.script.responding // chat A's answer now holds the only slot

	b := startSession(t, env.model(t), 120, 30)
	b.ready()
	b.submit("second chat")
	// Nothing moves while it waits: its clock redraws the screen twice a
	// second, not ten times (64 waiting chats on one server would redraw
	// 640 screens a second). The interval is read on the program's own
	// goroutine, in the state that shows the wait.
	var running, waiting time.Duration
	b.wait("the turn running", func(m *Model) bool {
		running = m.tickInterval()
		return m.running()
	})
	b.wait("the wait in the status line", func(m *Model) bool {
		waiting = m.tickInterval()
		return strings.Contains(ansi.Strip(m.statusLine(fixedNow)), "waiting for the controller — next in line")
	})
	if running != tickEvery || waiting != tickWaiting || tickWaiting < 5*tickEvery {
		t.Errorf("clock interval: %v while running, %v while waiting for the controller; want %v and %v (at least 5× slower)", running, waiting, tickEvery, tickWaiting)
	}
	b.key(keyCtrlC)
	b.wait("the cancelled turn", turnsDone(1))
	mb := b.finish()
	if !mb.turns[0].Canceled || strings.Contains(ansi.Strip(mb.statusLine(fixedNow)), "waiting for the controller") {
		t.Fatalf("chat B after Ctrl+C: cancelled %v, status %q", mb.turns[0].Canceled, ansi.Strip(mb.statusLine(fixedNow)))
	}
	a.wait("chat A still streaming", func(m *Model) bool { return m.running() && strings.Contains(m.cur.Answer, "Streaming") })
	a.key(keyCtrlC)
	a.wait("chat A cancelled", turnsDone(1))
	a.finish()
}

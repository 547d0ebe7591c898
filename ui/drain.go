package ui

import (
	tea "charm.land/bubbletea/v2"
)

// What a chat says when its server restarts (chorus serve --ssh drains
// on SIGTERM): a turn in flight finishes first; no new one starts.
const (
	drainBusyText = "The server is restarting — your turn finishes first, then this chat closes. Your session is saved; connect again in a moment and /load it."
	drainIdleText = "The server is restarting — this chat closes in a moment. Your session is saved; connect again in a moment and /load it."
	drainRefusal  = "the server is restarting — no new turns now; connect again in a moment"
)

// drainMsg tells the chat its server is restarting; drainedMsg that the
// server's turns have all finished, and the chat is to end.
type (
	drainMsg   struct{}
	drainedMsg struct{}
)

// Drain tells the chat that its server is restarting: it says so, lets a
// turn in flight finish, and starts no new one. The server ends the
// program with Drained once the turns have finished (or Quit, cutting a
// turn off, when it cannot wait longer). Safe to call from any goroutine,
// before the program runs too.
func (p *Program) Drain() {
	// Send blocks until the program runs, and returns once it has ended.
	go p.Send(drainMsg{})
}

func (m *Model) onDrain() tea.Cmd {
	if m.draining {
		return nil
	}
	m.draining = true
	if m.running() {
		m.say(drainBusyText)
	} else {
		m.say(drainIdleText)
	}
	return nil
}

// Drained ends the chat once it has shown the end of its turn: the
// server's turns have finished, but the chat's screen may not have drawn
// the last of its answer yet.
func (p *Program) Drained() { go p.Send(drainedMsg{}) }

func (m *Model) onDrained() tea.Cmd {
	m.drained = true
	if m.running() {
		return nil // endTurn quits
	}
	return tea.Quit
}

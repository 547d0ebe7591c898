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

// drainMsg tells the chat its server is restarting.
type drainMsg struct{}

// Drain tells the chat that its server is restarting: it says so, lets a
// turn in flight finish, and starts no new one. The server ends the
// program (Quit) once the turns have finished. Safe to call from any
// goroutine, before the program runs too.
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

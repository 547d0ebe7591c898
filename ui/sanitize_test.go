package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// hostile is model output that would take over the terminal if drawn as
// is: clear the screen, retitle the window, write the clipboard (OSC 52),
// colour, carriage return, backspace, bell, an 8-bit CSI.
const hostile = "before \x1b[2J\x1b[H\x1b]0;pwned\x07title \x1b[31mred\x1b[0m tab\there\rCR\x08 bell\x07 " +
	"osc52 \x1b]52;c;aGVsbG8=\x07 c1\u009b31m end"

// TestHostileOutputCannotTakeOverTheTerminal runs a turn whose answer, task
// result and errors carry escape sequences and control characters: the
// frame must carry none of them (only the app's own styling), keep the
// text, and stay the terminal's size.
func TestHostileOutputCannotTakeOverTheTerminal(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = hostile
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	s.submit("say something")
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	m.flash("the player failed:\nALSA lib pcm.c: unknown PCM default\x1b[2J", true)
	content := m.View().Content
	for _, bad := range []string{"\x1b[2J", "\x1b[H", "\x1b]0;", "\x1b]52", "\r", "\x07", "\x08", "\u009b"} {
		if strings.Contains(content, bad) {
			t.Errorf("the frame carries %q from the model's output", bad)
		}
	}
	if lines := strings.Split(content, "\n"); len(lines) != m.height {
		t.Errorf("the frame has %d lines on a %d-row terminal", len(lines), m.height)
	}
	plain := frame(m)
	for _, want := range []string{"before", "title", "red", "osc52", "end", "the player failed:"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the text %q should remain:\n%s", want, plain)
		}
	}
	if !strings.Contains(chatText(m), "unknown PCM default") {
		t.Errorf("a multi-line error should reach the chat whole:\n%s", chatText(m))
	}
	// Raw mode shows the source, cleaned the same way.
	m.raw = true
	m.chat.Follow()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if c := m.View().Content; strings.Contains(c, "\x1b]52") || strings.Contains(c, "\x1b[2J") {
		t.Error("raw mode draws the model's escape sequences")
	}
}

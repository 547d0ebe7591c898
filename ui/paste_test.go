package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteTooLargeIsRefused (issue 17, 5): a paste over the chat's limit
// is refused whole with a note saying how to send it instead; the prompt
// keeps what it had; a paste within the limit goes in.
func TestPasteTooLargeIsRefused(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.typeText("summarize ")
	s.tm.Send(tea.PasteMsg{Content: strings.Repeat("x", 10<<20)})
	s.wait("the note", func(m *Model) bool { return m.notice.text != "" })
	s.tm.Send(tea.PasteMsg{Content: "a small paste"})
	s.wait("the small paste", func(m *Model) bool { return strings.Contains(m.input.Value(), "a small paste") })
	m := s.finish()
	if want := "paste is too large (10.0 MB, limit 1 MB) — attach it as a file"; m.notice.text != want || !m.notice.bad {
		t.Errorf("notice %q, want %q", m.notice.text, want)
	}
	if v := m.input.Value(); v != "summarize a small paste" {
		t.Errorf("the prompt holds %.80q", v)
	}
	if got := PasteTooLargeNote(1536<<10, 512<<10); got != "paste is too large (1.5 MB, limit 512 KB) — attach it as a file" {
		t.Errorf("note %q", got)
	}
}

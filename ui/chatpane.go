package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// renderCtx describes how chat messages render now.
func (m *Model) renderCtx(width int) chat.RenderContext {
	return chat.RenderContext{Markdown: m.md, Styles: &m.st, Width: width, Raw: m.raw, Links: m.links,
		Images: m.images && m.media != nil, Thumbs: m.thumbs, TermHeight: m.height}
}

// say adds an app message to the chat.
func (m *Model) say(text string) {
	m.chat.Add(&chat.Message{Role: chat.RoleSystem, Text: text, Final: true})
	m.chat.Follow()
}

// systemError adds an error message to the chat.
func (m *Model) systemError(text string) {
	m.chat.Add(&chat.Message{Role: chat.RoleError, Text: text, Final: true})
	m.chat.Follow()
}

// chatLines is the chat column: the messages, or the welcome screen.
func (m *Model) chatLines(w, h int) []string {
	if len(m.chat.Messages()) == 0 {
		return m.welcome(w, h)
	}
	lines := m.chat.Lines(m.renderCtx(w-1), h)
	out := make([]string, len(lines))
	copy(out, lines)
	if !m.chat.AtBottom() && h > 0 {
		out[h-1] = m.st.Hint.Render(fmt.Sprintf("  ↓ more below — %s follows the newest", m.keys.Label(theme.ActScrollBottom)))
	}
	return out
}

// welcome is the empty state: what Chorus does and how to start.
func (m *Model) welcome(w, h int) []string {
	st := m.st
	body := []string{
		st.AssistantLabel.Render("Chorus"),
		"",
		"A local LLM plans your request, picks an expert model",
		"for every task, runs them and writes the answer.",
		"",
		st.Dim.Render(fmt.Sprintf("controller %s at %s", m.conv.Model(), m.conv.ControllerHost())),
		"",
		st.Dim.Render("enter sends · @file attaches · /help lists commands · " + m.keys.Label(theme.ActHelp) + " keys"),
	}
	block := lipgloss.NewStyle().Width(min(w, 64)).Align(lipgloss.Center).Render(strings.Join(body, "\n"))
	placed := lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, block)
	return chat.PadLines(strings.Split(placed, "\n"), h)
}

// toggleRaw shows the Markdown source instead of the rendering, or back.
func (m *Model) toggleRaw() tea.Cmd {
	m.raw = !m.raw
	if m.raw {
		m.flash("showing the Markdown source — "+m.keys.Label(theme.ActToggleRaw)+" renders it again", false)
	}
	return nil
}

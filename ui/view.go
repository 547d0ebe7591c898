package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/prompt"
	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

// wideLayout is the width from which the panes sit beside the chat.
const wideLayout = 120

// layout fits the prompt to the terminal: its width, and a height that
// leaves the chat at least three rows (a six-row prompt on an eight-row
// terminal would push the frame past the screen). Heights are computed on
// demand from the current state, so the screen always adds up to the
// terminal size.
func (m *Model) layout() {
	m.input.SetSize(max(10, m.width-1), max(1, min(prompt.MaxRows, m.height-2-3)))
}

// wide reports whether the panes form a right column.
func (m *Model) wide() bool { return m.panesShown && m.width >= wideLayout }

// paneWidth is the width of the right column.
func (m *Model) paneWidth() int {
	return min(max(m.width*2/5, 44), 72)
}

// chatWidth is the width of the chat column.
func (m *Model) chatWidth() int {
	if m.wide() {
		return m.width - m.paneWidth() - 1
	}
	return m.width
}

// bottomPanelHeight is the height of the tabbed panel (narrow layout): it
// appears once there is a turn to show, and gives way on short terminals.
func (m *Model) bottomPanelHeight() int {
	if !m.panesShown || m.wide() || m.lastTurn() == nil {
		return 0
	}
	h := min(12, max(6, m.height/3))
	if m.height-m.fixedHeight()-h < 4 {
		return 0
	}
	return h
}

// fixedHeight is what the prompt, the hint line and the status bar take.
func (m *Model) fixedHeight() int { return m.input.Height() + 2 }

// chatHeight is the number of chat rows.
func (m *Model) chatHeight() int {
	return max(1, m.height-m.fixedHeight()-m.bottomPanelHeight())
}

// View draws the screen.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = "Chorus"
	if m.quitting {
		return v
	}
	now := m.now()
	chatW, chatH := m.chatWidth(), m.chatHeight()
	top := m.chatLines(chatW, chatH)
	pc := turnview.RenderContext{Styles: &m.st, Turn: m.lastTurnView(), Now: now, Links: m.links}
	if m.wide() {
		// A blank after the rule: a tree's own "│" right against it would
		// read as a double line.
		pc.Width = m.paneWidth() - 1
		right := turnview.Column(pc, chatH, &m.paneScroll)
		sep := m.st.PaneBorder.Render("│") + " "
		for i := range top {
			top[i] = chat.PadRight(top[i], chatW) + sep + right[i]
		}
	}
	if ph := m.bottomPanelHeight(); ph > 0 {
		pc.Width = m.width
		top = append(top, turnview.Tabbed(pc, m.paneTab, ph, &m.paneScroll)...)
	}
	lines := top
	lines = append(lines, m.hintLine())
	inputTop := len(lines)
	lines = append(lines, strings.Split(m.input.View(), "\n")...)
	if m.dialog != nil {
		box, overPrompt := m.dialogBox()
		if overPrompt {
			lines = overlay(lines, box, m.width)
		} else {
			lines = append(overlay(top, box, m.width), lines[len(top):]...)
		}
	}
	lines = append(lines, m.statusLine(now))
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "")
		}
	}
	v.SetContent(strings.Join(lines, "\n"))
	if m.dialog == nil {
		if c := m.input.Cursor(); c != nil {
			c.Y += inputTop
			v.Cursor = c
		}
	}
	return v
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
	ctl := m.eng.Controller()
	body := []string{
		st.AssistantLabel.Render("Chorus"),
		"",
		"A local LLM plans your request, picks an expert model",
		"for every task, runs them and writes the answer.",
		"",
		st.Dim.Render(fmt.Sprintf("controller %s at %s", ctl.Model(), ctl.Host())),
		"",
		st.Dim.Render("enter sends · @file attaches · /help lists commands · " + m.keys.Label(theme.ActHelp) + " keys"),
	}
	block := lipgloss.NewStyle().Width(min(w, 64)).Align(lipgloss.Center).Render(strings.Join(body, "\n"))
	placed := lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, block)
	return chat.PadLines(strings.Split(placed, "\n"), h)
}

// hintLine sits between the chat and the prompt: a notice, a pull's
// progress, completion candidates, or the keys that matter now.
func (m *Model) hintLine() string {
	st := m.st
	w := m.width
	cands, selected := m.input.Candidates()
	var text string
	switch {
	case m.notice != "":
		// One line: a multi-line error keeps its first line here (the
		// chat has it whole).
		notice, _, _ := strings.Cut(chat.Clean(m.notice), "\n")
		if m.noticeBad {
			text = st.Fail.Render(notice)
		} else {
			text = st.OK.Render(notice)
		}
	case m.pull != nil:
		p := m.pull
		bar := ""
		pct := ""
		if p.total > 0 {
			bar = " " + progressBar(p.completed, p.total, 24)
			pct = fmt.Sprintf(" %3.0f%%", 100*float64(p.completed)/float64(p.total))
		}
		// The key comes before the layer being pulled: a long digest must
		// not push it off a narrow hint line.
		text = st.Run.Render("pull "+p.model) + bar + pct + st.Dim.Render(" · "+m.keys.Label(theme.ActCancel)+" stops · "+p.status)
	case len(cands) > 0 && !m.input.Empty():
		shown := make([]string, 0, len(cands))
		for i, l := range cands {
			if i == selected {
				l = st.Selected.Render(l)
			}
			shown = append(shown, l)
		}
		text = st.Hint.Render("tab ") + strings.Join(shown, st.Dim.Render("  "))
	case m.running():
		text = st.Hint.Render(fitHints(w-2, []hint{
			{m.keys.Label(theme.ActCancel) + " cancels the turn", 3},
			{m.keys.Label(theme.ActTogglePanes) + " panes", 1},
			{m.keys.Label(theme.ActScrollUp) + "/" + m.keys.Label(theme.ActScrollDown) + " scroll", 2},
		}))
	default:
		text = st.Hint.Render(fitHints(w-2, []hint{
			{m.keys.Label(theme.ActSend) + " send", 5},
			{m.keys.Label(theme.ActNewline) + " newline", 4},
			{"@file attach", 3},
			{"/ commands", 2},
			{m.keys.Label(theme.ActCopyAnswer) + " copy", 1},
			{m.keys.Label(theme.ActHelp) + " help", 6},
		}))
	}
	text = ansi.Truncate(text, w-1, "…")
	fill := w - ansi.StringWidth(text) - 1
	if fill > 0 {
		text += " " + st.PaneBorder.Render(strings.Repeat("─", fill))
	}
	return text
}

// hint is one "key does" entry of the hint line; entries of lower rank give
// way first when the line is too narrow, so the help key stays in view.
type hint struct {
	text string
	rank int
}

// fitHints joins hints with " · ", leaving out the lowest-ranked ones until
// the line fits w columns (the last one standing is cut by the caller).
func fitHints(w int, hints []hint) string {
	for {
		parts := make([]string, 0, len(hints))
		for _, h := range hints {
			parts = append(parts, h.text)
		}
		line := strings.Join(parts, " · ")
		if len(hints) <= 1 || ansi.StringWidth(line) <= w {
			return line
		}
		low := 0
		for i, h := range hints {
			if h.rank < hints[low].rank {
				low = i
			}
		}
		hints = append(hints[:low:low], hints[low+1:]...)
	}
}

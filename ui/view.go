package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
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
func (m *Model) wide() bool { return m.panes.shown && m.width >= wideLayout }

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
	if !m.panes.shown || m.wide() || m.lastTurn() == nil {
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
	pc := m.paneContext()
	if m.wide() {
		// A blank after the rule: a tree's own "│" right against it would
		// read as a double line.
		pc.Width = m.paneWidth() - 1
		right := turnview.Column(pc, chatH, m.panes.tab, &m.panes.scroll)
		sep := m.st.PaneBorder.Render("│") + " "
		for i := range top {
			top[i] = chat.PadRight(top[i], chatW) + sep + right[i]
		}
	}
	if ph := m.bottomPanelHeight(); ph > 0 {
		pc.Width = m.width
		top = append(top, turnview.Tabbed(pc, m.panes.tab, ph, &m.panes.scroll)...)
	}
	lines := top
	lines = append(lines, m.hintLine())
	inputTop := len(lines)
	lines = append(lines, strings.Split(m.input.View(), "\n")...)
	// A dialog covers the chat and panes, or the prompt too when it asks
	// for the whole screen; never the status line.
	under := len(top)
	var box string
	if m.dialog != nil {
		var overPrompt bool
		box, overPrompt = m.dialogBox()
		if overPrompt {
			under = len(lines)
		}
	}
	lines = append(lines, m.statusLine(now))
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "")
		}
	}
	if m.dialog != nil {
		v.SetContent(overlay(strings.Join(lines, "\n"), m.width, len(lines), under, box))
	} else {
		v.SetContent(strings.Join(lines, "\n"))
	}
	if m.dialog == nil {
		if c := m.input.Cursor(); c != nil {
			c.Y += inputTop
			v.Cursor = c
		}
	}
	return v
}

// paneContext is what the panes are drawn from: the last turn, the clock,
// the expanded details and the keys their hints name.
func (m *Model) paneContext() turnview.RenderContext {
	return turnview.RenderContext{Styles: &m.st, Turn: m.lastTurnView(), Now: m.now(), Links: m.links,
		Expanded: m.panes.expanded, ExpandKey: m.keys.Label(theme.ActExpand), FocusKey: m.keys.Label(theme.ActNextPane),
		ScrollUpKey: m.keys.Label(theme.ActPaneUp), ScrollDownKey: m.keys.Label(theme.ActPaneDown), ZoomKey: m.keys.Label(theme.ActZoomPane)}
}

// onResize lays the screen out for the terminal's new size (20×8 at
// least) and asks for the previews the new width needs.
func (m *Model) onResize(msg tea.WindowSizeMsg) tea.Cmd {
	m.width, m.height = max(msg.Width, 20), max(msg.Height, 8)
	m.layout()
	return m.requestThumbs()
}

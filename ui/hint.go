package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/text"
	"github.com/chorusai/chorus/ui/theme"
)

// hintLine sits between the chat and the prompt: a notice, a pull's
// progress, completion candidates, or the keys that matter now.
func (m *Model) hintLine() string {
	st := m.st
	w := m.width
	cands, selected := m.input.Candidates()
	var line string
	switch {
	case m.notice.text != "":
		// One line: a multi-line error keeps its first line here (the
		// chat has it whole).
		notice, _, _ := strings.Cut(text.Clean(m.notice.text), "\n")
		if m.notice.bad {
			line = st.Fail.Render(notice)
		} else {
			line = st.OK.Render(notice)
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
		line = st.Run.Render("pull "+p.model) + bar + pct + st.Dim.Render(" · "+m.keys.Label(theme.ActCancel)+" stops · "+p.status)
	case len(cands) > 0 && !m.input.Empty():
		shown := make([]string, 0, len(cands))
		for i, l := range cands {
			if i == selected {
				l = st.Selected.Render(l)
			}
			shown = append(shown, l)
		}
		line = st.Hint.Render("tab ") + strings.Join(shown, st.Dim.Render("  "))
	case m.running():
		hints := []hint{
			{m.keys.Label(theme.ActCancel) + " cancels the turn", 3},
			{m.keys.Label(theme.ActTogglePanes) + " panes", 1},
			{m.keys.Label(theme.ActScrollUp) + "/" + m.keys.Label(theme.ActScrollDown) + " scroll", 2},
		}
		if m.panesGaveWay() {
			hints[1] = hint{m.keys.Label(theme.ActZoomPane) + " panes", 2}
		}
		line = st.Hint.Render(fitHints(w-2, hints))
	default:
		hints := []hint{
			{m.keys.Label(theme.ActSend) + " send", 5},
			{m.keys.Label(theme.ActNewline) + " newline", 4},
			{"@file attach", 3},
			{"/ commands", 2},
			{m.keys.Label(theme.ActCopyAnswer) + " copy", 1},
			{m.keys.Label(theme.ActHelp) + " help", 6},
		}
		if m.panesGaveWay() {
			// The panes have no room here: say how to see them.
			hints = append(hints[:4], hint{m.keys.Label(theme.ActZoomPane) + " panes", 4}, hints[5])
		}
		line = st.Hint.Render(fitHints(w-2, hints))
	}
	line = ansi.Truncate(line, w-1, "…")
	fill := w - ansi.StringWidth(line) - 1
	if fill > 0 {
		line += " " + st.PaneBorder.Render(strings.Repeat("─", fill))
	}
	return line
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

// panesGaveWay reports whether a turn's panes would show but the terminal
// is too short for them (the zoom key still shows them).
func (m *Model) panesGaveWay() bool {
	return m.panes.shown && !m.wide() && m.lastTurn() != nil && m.bottomPanelHeight() == 0
}

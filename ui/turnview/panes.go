package turnview

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// Pane names the three live panes.
type Pane int

// The panes, in tab order; NumPanes counts them.
const (
	PanePlan Pane = iota
	PaneModels
	PaneExec
	NumPanes
)

func (p Pane) title() string {
	return [...]string{"Plan", "Models", "Execution"}[p]
}

// Title is the pane's name, as its tab shows it.
func (p Pane) Title() string { return p.title() }

// Lines is the whole content of a pane, for a view that shows it all.
func Lines(pc RenderContext, k Pane) []string { return paneLines(pc, k) }

// spinnerFrames animate running tasks; the frame comes from the clock so
// every pane shows the same one and tests with a fixed clock are stable.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spinnerAt(now time.Time) string {
	return spinnerFrames[int(now.UnixMilli()/100)%len(spinnerFrames)]
}

// RenderContext is what pane rendering needs.
type RenderContext struct {
	Styles *theme.Styles
	Turn   *TurnState
	Now    time.Time
	Width  int
	Links  bool
	// Expanded shows the Models pane's details: reasons in full, the other
	// candidates, every excluded model. ExpandKey names the key that
	// toggles it, for the pane's hint.
	Expanded  bool
	ExpandKey string
	// The keys the panes' hints name: FocusKey moves the focus to the
	// next pane (next_pane), ScrollUpKey and ScrollDownKey scroll the
	// pane in focus (pane_up, pane_down), ZoomKey shows it full screen.
	FocusKey, ScrollUpKey, ScrollDownKey, ZoomKey string
}

// taskGlyph is ts's glyph: its status's, or "?" while its tool waits for
// the user's approval (nothing spins: nothing runs).
func (pc RenderContext) taskGlyph(ts *TaskState) string {
	if ts.waiting() {
		return pc.Styles.Warn.Render("?")
	}
	return pc.glyph(ts.Status)
}

// waitingForYou is what a task whose tool waits for approval shows in
// place of its clock.
const waitingForYou = "waiting for you"

func (pc RenderContext) glyph(s TaskStatus) string {
	st := pc.Styles
	switch s {
	case TaskRunning:
		return st.Run.Render(spinnerAt(pc.Now))
	case TaskDone:
		return st.OK.Render("✓")
	case TaskFailed:
		return st.Fail.Render("✗")
	case TaskSkipped:
		return st.Skipped.Render("⊘")
	case TaskCancelled:
		return st.Skipped.Render("⊝")
	}
	return st.Pending.Render("·")
}

// fit truncates every line to the pane width.
func fit(lines []string, w int) []string {
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
	return lines
}

// wrapIndent wraps text to w columns with every line indented by pad.
func wrapIndent(text string, w int, pad string, style func(...string) string) []string {
	var out []string
	for _, l := range chat.WrapPlain(text, max(w-ansi.StringWidth(pad), 8)) {
		out = append(out, pad+style(l))
	}
	return out
}

// paneLines dispatches on kind.
func paneLines(pc RenderContext, k Pane) []string {
	switch k {
	case PanePlan:
		return PlanLines(pc)
	case PaneModels:
		return ModelLines(pc)
	}
	return ExecLines(pc)
}

// Column renders the three panes stacked, for the wide layout. The pane in
// focus (the stage's, or the one the user picked: next_pane, expand) gets
// the room it needs, the others at least a few lines each, and only the
// focused one scrolls, by *scroll (clamped to what there is, so keys pressed
// past the end are not owed back). A pane cut short says which key shows
// the rest.
func Column(pc RenderContext, height int, focus Pane, scroll *int) []string {
	st := pc.Styles
	title := func(k Pane) string {
		t := " " + k.title() + " "
		style := st.PaneTitle
		if k == focus {
			style = st.PaneTitleActive
		}
		return style.Render(t) + st.PaneBorder.Render(strings.Repeat("─", max(0, pc.Width-ansi.StringWidth(t))))
	}
	var lines [NumPanes][]string
	for k := range NumPanes {
		lines[k] = paneLines(pc, k)
	}
	body := height - int(NumPanes)
	if body < int(NumPanes) {
		// Room for one pane only: the one in focus.
		return chat.PadLines(fit(append([]string{title(focus)}, pc.window(focus, lines[focus], max(0, height-1), true, scroll)...), pc.Width), height)
	}
	rows := allot(lines, body, focus)
	var out []string
	for k := range NumPanes {
		out = append(out, title(k))
		if k == focus {
			out = append(out, pc.window(k, lines[k], rows[k], true, scroll)...)
		} else {
			none := 0
			out = append(out, pc.window(k, lines[k], rows[k], false, &none)...)
		}
	}
	return chat.PadLines(fit(out, pc.Width), height)
}

// allot shares body rows among the panes: the pane in focus first, all it
// needs but for a floor of three rows for each of the others (or what they
// have); what is left goes to the others in order.
func allot(lines [NumPanes][]string, body int, focus Pane) [NumPanes]int {
	var rows [NumPanes]int
	floor := func(k Pane) int { return min(len(lines[k]), 3) }
	others := 0
	for k := range NumPanes {
		if k != focus {
			others += floor(k)
		}
	}
	rows[focus] = min(len(lines[focus]), max(body-others, min(body, 3)))
	left := body - rows[focus]
	for k := range NumPanes {
		if k != focus {
			rows[k] = min(floor(k), left)
			left -= rows[k]
		}
	}
	for k := range NumPanes {
		if k != focus {
			more := min(len(lines[k])-rows[k], left)
			rows[k] += more
			left -= more
		}
	}
	return rows
}

// Tabbed renders one pane with a tab bar, for the narrow layout, scrolled
// by *scroll (clamped to what there is).
func Tabbed(pc RenderContext, active Pane, height int, scroll *int) []string {
	st := pc.Styles
	var tabs []string
	for k := range NumPanes {
		label := " " + k.title() + " "
		if k == active {
			tabs = append(tabs, st.PaneTitleActive.Render(label))
		} else {
			tabs = append(tabs, st.PaneTitle.Render(label))
		}
	}
	bar := strings.Join(tabs, st.PaneBorder.Render("│"))
	bar += st.PaneBorder.Render(strings.Repeat("─", max(0, pc.Width-ansi.StringWidth(bar))))
	body := pc.window(active, paneLines(pc, active), height-1, true, scroll)
	return chat.PadLines(fit(append([]string{bar}, body...), pc.Width), height)
}

// window shows n rows of a pane's lines. Plan and Models read from the top
// and scroll down (*scroll lines from the top); Execution shows its newest
// lines and scrolls back (*scroll lines from the end). A line that says
// what is hidden, and the key that shows it, takes the place of the first
// or last line shown: the scroll keys in the pane in focus, else the focus
// key. *scroll is clamped to what there is.
func (pc RenderContext) window(k Pane, lines []string, n int, focused bool, scroll *int) []string {
	if n <= 0 {
		return nil
	}
	if len(lines) <= n {
		*scroll = 0
		return lines
	}
	hint := func(down bool) string {
		switch {
		case !focused:
			return keyHint(pc.FocusKey, "focuses")
		case down:
			return keyHint(pc.ScrollDownKey, "scrolls")
		}
		return keyHint(pc.ScrollUpKey, "scrolls")
	}
	marker := func(text string) string { return pc.Styles.Dim.Render(text) }
	// The window is [start, end) of lines, with a marker row in place of
	// a line at an edge that hides more.
	*scroll = max(0, min(*scroll, len(lines)-n))
	start := *scroll
	if k == PaneExec {
		start = len(lines) - n - *scroll
	}
	end := start + n
	out := slices.Clone(lines[start:end])
	// With one row there is no room for a marker: the line itself shows.
	if start > 0 && n >= 3 {
		out[0] = marker(fmt.Sprintf("… %d earlier lines%s", start+1, hint(false)))
	}
	if end < len(lines) && n >= 2 {
		out[n-1] = marker(fmt.Sprintf("… %d more lines%s", len(lines)-end+1, hint(true)))
	}
	return out
}

// keyHint is " · KEY WHAT", or nothing when no key is named.
func keyHint(key, what string) string {
	if key == "" {
		return ""
	}
	return " · " + key + " " + what
}

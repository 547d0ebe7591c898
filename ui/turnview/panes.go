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

// spinnerFrames animate running tasks; the frame comes from the clock so
// every pane shows the same one and tests with a fixed clock are stable.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spinnerAt(now time.Time) string {
	return spinnerFrames[int(now.UnixMilli()/100)%len(spinnerFrames)]
}

// RenderContext is what pane rendering needs.
type RenderContext struct {
	Styles *theme.Styles
	Turn   *Turn
	Now    time.Time
	Width  int
	Links  bool
	// Expanded shows the Models pane's details: reasons in full, the other
	// candidates, every excluded model. ExpandKey names the key that
	// toggles it, for the pane's hint.
	Expanded  bool
	ExpandKey string
}

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

// Column renders the three panes stacked, for the wide layout. Each pane
// gets a share of the height; Execution gets what the others leave and
// shows its newest lines, scrolled back by *scroll (clamped to what there
// is, so keys pressed past the end are not owed back).
func Column(pc RenderContext, height int, scroll *int) []string {
	st := pc.Styles
	title := func(k Pane) string {
		t := " " + k.title() + " "
		return st.PaneTitleActive.Render(t) + st.PaneBorder.Render(strings.Repeat("─", max(0, pc.Width-ansi.StringWidth(t))))
	}
	plan := PlanLines(pc)
	models := ModelLines(pc)
	exec := ExecLines(pc)
	body := height - 3
	if body < 3 {
		return chat.PadLines(fit(append([]string{title(PaneExec)}, tail(exec, max(0, height-1), scroll)...), pc.Width), height)
	}
	pb := min(len(plan), max(2, body*2/5))
	mb := min(len(models), max(2, body*3/10))
	eb := body - pb - mb
	if eb < len(exec) { // execution is what moves during a run: give it room
		spare := len(exec) - eb
		if pb > 3 && spare > 0 {
			d := min(spare, pb-3)
			pb -= d
			eb += d
			spare -= d
		}
		if mb > 3 && spare > 0 {
			d := min(spare, mb-3)
			mb -= d
			eb += d
		}
	}
	var out []string
	out = append(out, title(PanePlan))
	out = append(out, clipLines(plan, pb)...)
	out = append(out, title(PaneModels))
	out = append(out, clipLines(models, mb)...)
	out = append(out, title(PaneExec))
	out = append(out, tail(exec, eb, scroll)...)
	return chat.PadLines(out, height)
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
	lines := paneLines(pc, active)
	var body []string
	if active == PaneExec {
		body = tail(lines, height-1, scroll)
	} else {
		start := min(*scroll, max(0, len(lines)-(height-1)))
		*scroll = max(0, start)
		body = clipLines(lines[start:], height-1)
	}
	return chat.PadLines(append([]string{bar}, body...), height)
}

// clipLines keeps the first n lines, marking what was cut.
func clipLines(lines []string, n int) []string {
	if n <= 0 {
		return nil
	}
	if len(lines) <= n {
		return lines
	}
	out := slices.Clone(lines[:n-1])
	return append(out, fmt.Sprintf("… %d more lines", len(lines)-n+1))
}

// tail keeps the last n lines, scrolled back by *scroll lines; *scroll is
// clamped to the lines there are to scroll back through.
func tail(lines []string, n int, scroll *int) []string {
	if n <= 0 {
		return nil
	}
	*scroll = max(0, min(*scroll, len(lines)-n))
	end := len(lines) - *scroll
	start := max(0, end-n)
	return lines[start:end]
}

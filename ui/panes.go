package ui

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// paneKind names the three live panes.
type paneKind int

const (
	panePlan paneKind = iota
	paneModels
	paneExec
	numPanes
)

func (p paneKind) title() string {
	return [...]string{"Plan", "Models", "Execution"}[p]
}

// spinnerFrames animate running tasks; the frame comes from the clock so
// every pane shows the same one and tests with a fixed clock are stable.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spinnerAt(now time.Time) string {
	return spinnerFrames[int(now.UnixMilli()/100)%len(spinnerFrames)]
}

// paneCtx is what pane rendering needs.
type paneCtx struct {
	st    *theme.Styles
	turn  *turnState
	now   time.Time
	width int
	links bool
}

func (pc paneCtx) glyph(s taskStatus) string {
	st := pc.st
	switch s {
	case taskRunning:
		return st.Run.Render(spinnerAt(pc.now))
	case taskDone:
		return st.OK.Render("✓")
	case taskFailed:
		return st.Fail.Render("✗")
	case taskSkipped:
		return st.Skipped.Render("⊘")
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

// planLines renders the task graph as a tree: each task hangs under the
// last task it depends on and names its other dependencies; arguments that
// take another task's output show as →#N.
func planLines(pc paneCtx) []string {
	st, t := pc.st, pc.turn
	if t == nil {
		return []string{st.Dim.Render("No plan yet — send a request.")}
	}
	if t.plan == nil {
		if t.done {
			return []string{st.Dim.Render("No plan: the turn ended before planning finished.")}
		}
		return []string{st.Run.Render(spinnerAt(pc.now)) + " planning…"}
	}
	var out []string
	if len(t.tasks) == 0 {
		out = append(out, st.Dim.Render("No expert tasks — the controller answers directly."))
	}
	children := map[int][]*taskState{}
	var roots []*taskState
	ids := map[int]bool{}
	for _, ts := range t.tasks {
		ids[ts.task.ID] = true
	}
	for _, ts := range t.tasks {
		parent := -1
		for _, d := range ts.task.Dep {
			if ids[d] && d != ts.task.ID {
				parent = d
			}
		}
		if parent < 0 {
			roots = append(roots, ts)
		} else {
			children[parent] = append(children[parent], ts)
		}
	}
	seen := map[int]bool{}
	var walk func(ts *taskState, prefix string, last bool, root bool)
	walk = func(ts *taskState, prefix string, last bool, root bool) {
		if seen[ts.task.ID] {
			return
		}
		seen[ts.task.ID] = true
		branch, next := "", prefix
		if !root {
			if last {
				branch, next = "└─", prefix+"  "
			} else {
				branch, next = "├─", prefix+"│ "
			}
		}
		head := st.PaneBorder.Render(prefix+branch) + pc.glyph(ts.status) + " " +
			st.Bold.Render(fmt.Sprintf("%d %s", ts.task.ID, ts.task.Task))
		if extra := otherDeps(ts); extra != "" {
			head += st.Dim.Render(" (also after " + extra + ")")
		}
		out = append(out, head)
		argPad := next
		if kids := children[ts.task.ID]; len(kids) > 0 {
			argPad = next + "│ "
		} else {
			argPad = next + "  "
		}
		for _, a := range argLines(pc, ts.task) {
			out = append(out, st.PaneBorder.Render(argPad)+a)
		}
		kids := children[ts.task.ID]
		for i, k := range kids {
			walk(k, next, i == len(kids)-1, false)
		}
	}
	for _, r := range roots {
		walk(r, "", true, true)
	}
	for _, ts := range t.tasks { // cycles the validator let through: still show them
		if !seen[ts.task.ID] {
			walk(ts, "", true, true)
		}
	}
	if !t.plan.Constraints.IsZero() {
		out = append(out, st.Dim.Render("constraints: "+t.plan.Constraints.String()))
	}
	for _, n := range t.plan.Notes {
		out = append(out, wrapIndent("note: "+n, pc.width, "", st.Warn.Render)...)
	}
	return fit(out, pc.width)
}

func otherDeps(ts *taskState) string {
	if len(ts.task.Dep) < 2 {
		return ""
	}
	var s []string
	for _, d := range ts.task.Dep[:len(ts.task.Dep)-1] {
		s = append(s, fmt.Sprintf("#%d", d))
	}
	return strings.Join(s, ", ")
}

// argLines shows a task's arguments, one per line, sorted by name.
func argLines(pc paneCtx, t pipeline.Task) []string {
	st := pc.st
	keys := make([]string, 0, len(t.Args))
	for k := range t.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, st.Dim.Render(k+"=")+argValue(st, t.Args[k]))
	}
	return out
}

// argValue renders an argument: references to other tasks' outputs become
// →#N, file paths keep their base name, long text is cut.
func argValue(st *theme.Styles, v string) string {
	if refPattern.MatchString(v) {
		var b strings.Builder
		last := 0
		for _, m := range refPattern.FindAllStringSubmatchIndex(v, -1) {
			b.WriteString(chat.Clip(v[last:m[0]], 24))
			b.WriteString(st.Ref.Render("→#" + v[m[2]:m[3]]))
			last = m[1]
		}
		b.WriteString(chat.Clip(v[last:], 24))
		return b.String()
	}
	if strings.HasPrefix(v, "/") && !strings.Contains(v, " ") {
		return v
	}
	return fmt.Sprintf("%q", chat.Clip(v, 60))
}

// refPattern matches "<resource>-N" (and HuggingGPT's "<GENERATED>-N"), as
// pipeline.Refs does.
var refPattern = regexp.MustCompile(`<(?i:resource|generated)>-(\d+)`)

// modelLines shows, per task, the chosen model, the endpoint kind, why it
// was chosen, and the other candidates and exclusions.
func modelLines(pc paneCtx) []string {
	st, t := pc.st, pc.turn
	if t == nil || t.plan == nil {
		return []string{st.Dim.Render("No model choices yet.")}
	}
	if len(t.tasks) == 0 {
		return []string{st.Dim.Render("No tasks, so no expert models.")}
	}
	var out []string
	waiting := true
	for _, ts := range t.tasks {
		c := ts.choice
		if c == nil {
			continue
		}
		waiting = false
		name := c.Model
		switch {
		case c.Endpoint == pipeline.EndpointController:
			name = "the controller (" + t.model + ")"
		case name == "":
			name = st.Fail.Render("no model")
		}
		out = append(out, st.Bold.Render(fmt.Sprintf("#%d %s", c.ID, c.Task))+" → "+st.Accent.Render(name))
		where := c.Endpoint
		if where == "" {
			where = "—"
		}
		out = append(out, "   "+st.Dim.Render(where+" · "+c.Decided))
		if c.Reason != "" {
			out = append(out, wrapIndent(c.Reason, pc.width, "   ", st.Faint.Render)...)
		}
		var others []string
		for _, cand := range c.Candidates {
			if cand.ID != c.Model {
				others = append(others, cand.ID)
			}
		}
		if len(others) > 0 {
			out = append(out, wrapIndent("also: "+strings.Join(others, ", "), pc.width, "   ", st.Dim.Render)...)
		}
		for i, ex := range c.Excluded {
			if i == 3 {
				out = append(out, "   "+st.Dim.Render(fmt.Sprintf("+%d more excluded (/models %s)", len(c.Excluded)-3, c.Task)))
				break
			}
			out = append(out, wrapIndent("✗ "+ex.ID+": "+ex.Reason, pc.width, "   ", st.Dim.Render)...)
		}
	}
	if waiting {
		if t.done {
			return []string{st.Dim.Render("No model was chosen this turn.")}
		}
		return []string{st.Run.Render(spinnerAt(pc.now)) + " choosing models…"}
	}
	return fit(out, pc.width)
}

// execLines is the live execution log: per task its status, elapsed time,
// progress (with a countdown while a model loads), a short result, the
// files it made as links, and its errors in full.
func execLines(pc paneCtx) []string {
	st, t := pc.st, pc.turn
	if t == nil {
		return []string{st.Dim.Render("Nothing has run yet.")}
	}
	var out []string
	for _, ts := range t.tasks {
		if ts.status == taskPending && len(ts.log) == 0 {
			continue
		}
		el := ts.elapsed
		if ts.status == taskRunning {
			el = pc.now.Sub(ts.started)
		}
		head := pc.glyph(ts.status) + " " + st.Bold.Render(fmt.Sprintf("#%d %s", ts.task.ID, ts.task.Task)) + " " + st.Dim.Render(humanDuration(el))
		if ts.model != "" {
			head += st.Dim.Render(" " + ts.model)
		}
		out = append(out, head)
		for _, l := range ts.log {
			style := st.Dim.Render
			if l.err {
				style = st.Fail.Render
			}
			out = append(out, wrapIndent(l.text, pc.width, "   ", style)...)
		}
		if ts.status == taskRunning && !ts.waitUntil.IsZero() {
			left := ts.waitUntil.Sub(pc.now).Round(time.Second)
			if left > 0 {
				out = append(out, "   "+st.Warn.Render(fmt.Sprintf("model loading — %s left", left)))
			} else {
				out = append(out, "   "+st.Warn.Render("model loading — retrying now"))
			}
		}
		if ts.status == taskDone && ts.result != "" {
			out = append(out, "   "+st.OK.Render("→ ")+chat.Clip(ts.result, 200))
		}
		if n := len(ts.attempts); n > 1 {
			for _, a := range ts.attempts[:n-1] {
				if a.Error != "" {
					out = append(out, wrapIndent("tried "+a.Model+" on "+a.Endpoint+": "+a.Error, pc.width, "   ", st.Warn.Render)...)
				}
			}
		}
		for _, f := range ts.files {
			out = append(out, chat.FileLine(pc.st, "made", f, pc.width, pc.links))
		}
	}
	for _, e := range t.errors {
		if e.Fatal && t.canceled {
			continue
		}
		out = append(out, wrapIndent(fmt.Sprintf("%s: %s", e.Stage, e.Message), pc.width, "", st.Fail.Render)...)
	}
	if len(out) == 0 {
		switch {
		case t.done:
			out = append(out, st.Dim.Render("No expert model ran this turn."))
		case t.stage == pipeline.StageResponse:
			out = append(out, st.Run.Render(spinnerAt(pc.now))+" writing the answer…")
		default:
			out = append(out, st.Dim.Render("Waiting for the plan…"))
		}
	} else if !t.done && t.stage == pipeline.StageResponse {
		out = append(out, st.Run.Render(spinnerAt(pc.now))+" writing the answer…")
	}
	return fit(out, pc.width)
}

// paneLines dispatches on kind.
func paneLines(pc paneCtx, k paneKind) []string {
	switch k {
	case panePlan:
		return planLines(pc)
	case paneModels:
		return modelLines(pc)
	}
	return execLines(pc)
}

// column renders the three panes stacked, for the wide layout. Each pane
// gets a share of the height; Execution gets what the others leave and
// shows its newest lines, scrolled back by *scroll (clamped to what there
// is, so keys pressed past the end are not owed back).
func column(pc paneCtx, height int, scroll *int) []string {
	st := pc.st
	title := func(k paneKind) string {
		t := " " + k.title() + " "
		return st.PaneTitleActive.Render(t) + st.PaneBorder.Render(strings.Repeat("─", max(0, pc.width-ansi.StringWidth(t))))
	}
	plan := planLines(pc)
	models := modelLines(pc)
	exec := execLines(pc)
	body := height - 3
	if body < 3 {
		return chat.PadLines(fit(append([]string{title(paneExec)}, tail(exec, max(0, height-1), scroll)...), pc.width), height)
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
	out = append(out, title(panePlan))
	out = append(out, clipLines(plan, pb)...)
	out = append(out, title(paneModels))
	out = append(out, clipLines(models, mb)...)
	out = append(out, title(paneExec))
	out = append(out, tail(exec, eb, scroll)...)
	return chat.PadLines(out, height)
}

// tabbed renders one pane with a tab bar, for the narrow layout, scrolled
// by *scroll (clamped to what there is).
func tabbed(pc paneCtx, active paneKind, height int, scroll *int) []string {
	st := pc.st
	var tabs []string
	for k := range numPanes {
		label := " " + k.title() + " "
		if k == active {
			tabs = append(tabs, st.PaneTitleActive.Render(label))
		} else {
			tabs = append(tabs, st.PaneTitle.Render(label))
		}
	}
	bar := strings.Join(tabs, st.PaneBorder.Render("│"))
	bar += st.PaneBorder.Render(strings.Repeat("─", max(0, pc.width-ansi.StringWidth(bar))))
	lines := paneLines(pc, active)
	var body []string
	if active == paneExec {
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

package turnview

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// PlanLines renders the task graph as a tree: each task hangs under the
// last task it depends on and names its other dependencies; arguments that
// take another task's output show as →#N.
func PlanLines(pc RenderContext) []string {
	st, t := pc.Styles, pc.Turn
	if t == nil {
		return []string{st.Dim.Render("No plan yet — send a request.")}
	}
	if t.Plan == nil {
		if t.Done {
			return []string{st.Dim.Render("No plan: the turn ended before planning finished.")}
		}
		return []string{st.Run.Render(spinnerAt(pc.Now)) + " planning…"}
	}
	var out []string
	if len(t.Tasks) == 0 && !t.Planning {
		out = append(out, st.Dim.Render("No expert tasks — the controller answers directly."))
	}
	children := map[int][]*TaskState{}
	var roots []*TaskState
	ids := map[int]bool{}
	for _, ts := range t.Tasks {
		ids[ts.Task.ID] = true
	}
	for _, ts := range t.Tasks {
		parent := -1
		for _, d := range ts.Task.Dep {
			if ids[d] && d != ts.Task.ID {
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
	var walk func(ts *TaskState, prefix string, last bool, root bool)
	walk = func(ts *TaskState, prefix string, last bool, root bool) {
		if seen[ts.Task.ID] {
			return
		}
		seen[ts.Task.ID] = true
		branch, next := "", prefix
		if !root {
			if last {
				branch, next = "└─", prefix+"  "
			} else {
				branch, next = "├─", prefix+"│ "
			}
		}
		head := st.PaneBorder.Render(prefix+branch) + pc.glyph(ts.Status) + " " +
			st.Bold.Render(fmt.Sprintf("%d %s", ts.Task.ID, ts.Task.Task))
		if extra := otherDeps(ts); extra != "" {
			head += st.Dim.Render(" (also after " + extra + ")")
		}
		out = append(out, head)
		argPad := next + "  "
		if kids := children[ts.Task.ID]; len(kids) > 0 {
			argPad = next + "│ "
		}
		for _, a := range argLines(pc, ts.Task) {
			out = append(out, st.PaneBorder.Render(argPad)+a)
		}
		kids := children[ts.Task.ID]
		for i, k := range kids {
			walk(k, next, i == len(kids)-1, false)
		}
	}
	for _, r := range roots {
		walk(r, "", true, true)
	}
	for _, ts := range t.Tasks { // cycles the validator let through: still show them
		if !seen[ts.Task.ID] {
			walk(ts, "", true, true)
		}
	}
	if t.Planning && !t.Done {
		// The tasks above arrived while the plan is still being written;
		// they start as soon as they can.
		out = append(out, st.Run.Render(spinnerAt(pc.Now))+" planning… (tasks start as they arrive)")
	}
	if !t.Plan.Constraints.IsZero() {
		out = append(out, st.Dim.Render("constraints: "+t.Plan.Constraints.String()))
	}
	for _, n := range t.Plan.Notes {
		out = append(out, wrapIndent("note: "+n, pc.Width, "", st.Warn.Render)...)
	}
	return fit(out, pc.Width)
}

func otherDeps(ts *TaskState) string {
	if len(ts.Task.Dep) < 2 {
		return ""
	}
	var s []string
	for _, d := range ts.Task.Dep[:len(ts.Task.Dep)-1] {
		s = append(s, fmt.Sprintf("#%d", d))
	}
	return strings.Join(s, ", ")
}

// argLines shows a task's arguments, one per line, sorted by name.
func argLines(pc RenderContext, t pipeline.Task) []string {
	st := pc.Styles
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

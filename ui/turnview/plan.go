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
// take another task's output show as →#N. A revised plan marks the branch
// its revision replaced and shows the revision's tasks after the plan's.
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
	// The plan's tasks, then each revision's under a line that says
	// which failure it answers.
	out = append(out, taskTree(pc, tasksOf(t, 0))...)
	for i, r := range t.Revisions {
		out = append(out, wrapIndent("↻ "+revisionHead(r), pc.Width, "", st.Warn.Render)...)
		out = append(out, taskTree(pc, tasksOf(t, i+1))...)
		for _, n := range r.Notes {
			out = append(out, wrapIndent("note: "+n, pc.Width, "", st.Warn.Render)...)
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

// tasksOf returns the tasks of the plan (revision 0) or of revision n.
func tasksOf(t *TurnState, n int) []*TaskState {
	var out []*TaskState
	for _, ts := range t.Tasks {
		if ts.Revision == n {
			out = append(out, ts)
		}
	}
	return out
}

// revisionHead says what a revision answers and what it did.
func revisionHead(r pipeline.Revision) string {
	failed := make([]string, len(r.After))
	for i, f := range r.After {
		failed[i] = fmt.Sprintf("#%d %s", f.ID, f.Task)
	}
	if len(r.Tasks) == 0 {
		return "revised after " + strings.Join(failed, ", ") + " failed — no other way found"
	}
	return "revised after " + strings.Join(failed, ", ") + " failed — " + chat.Count(len(r.Tasks), "new task")
}

// taskTree renders tasks as a tree: each hangs under the last of them it
// depends on and names its other dependencies (tasks of the plan, for a
// revision's); arguments that take another task's output show as →#N.
// A task a revision replaced is marked so.
func taskTree(pc RenderContext, tasks []*TaskState) []string {
	st := pc.Styles
	var out []string
	children := map[int][]*TaskState{}
	var roots []*TaskState
	ids := map[int]bool{}
	for _, ts := range tasks {
		ids[ts.Task.ID] = true
	}
	parentOf := map[int]int{}
	for _, ts := range tasks {
		parent := -1
		for _, d := range ts.Task.Dep {
			if ids[d] && d != ts.Task.ID {
				parent = d
			}
		}
		parentOf[ts.Task.ID] = parent
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
		head := st.PaneBorder.Render(prefix+branch) + pc.taskGlyph(ts) + " " +
			st.Bold.Render(fmt.Sprintf("%d %s", ts.Task.ID, ts.Task.Task))
		if ts.waiting() {
			head += " " + st.Warn.Render(waitingForYou)
		}
		if extra := otherDeps(ts, parentOf[ts.Task.ID]); extra != "" {
			word := "also after "
			if parentOf[ts.Task.ID] < 0 {
				word = "after "
			}
			head += st.Dim.Render(" (" + word + extra + ")")
		}
		if ts.Replaced {
			head += st.Warn.Render(" ↻ replaced")
		}
		out = append(out, head)
		argPad := next + "  "
		if len(children[ts.Task.ID]) > 0 {
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
	for _, ts := range tasks { // cycles the validator let through: still show them
		if !seen[ts.Task.ID] {
			walk(ts, "", true, true)
		}
	}
	return out
}

// otherDeps names the dependencies of ts but the one it hangs under.
func otherDeps(ts *TaskState, parent int) string {
	var s []string
	for _, d := range ts.Task.Dep {
		if d != parent {
			s = append(s, fmt.Sprintf("#%d", d))
		}
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

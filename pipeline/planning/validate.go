package planning

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// argAliases maps argument names models invent for any skill onto the
// modality-named ones; an argument with another name lists its own in its
// skill file (synonyms), which win.
var argAliases = map[string]string{
	"question": "text", "prompt": "text", "input": "text", "query": "text", "sentence": "text", "instruction": "text",
	"content": "text", "caption": "text", "img": "image", "image_url": "image", "img_url": "image", "picture": "image",
	"photo": "image", "audio_url": "audio", "speech": "audio", "video_url": "video",
}

// validator repairs a raw plan into one that can run, recording every
// change. It is HIVE's "check before run": names, ids, dependencies,
// cycles, argument modalities and files are all proven before execution.
type validator struct {
	cat  *skills.Catalog
	turn *Planner
	// scope is what the turn may read: a path the plan names outside it
	// drops its task, with the way to allow it.
	scope *scope.Scope
	max   int
	notes []string
	// dropped maps a task id to why it was removed.
	dropped map[int]string
	// prior are the tasks a revision builds on — the turn's tasks that
	// succeeded, whose outputs its tasks may use — and taken every id the
	// turn has used, which a revision's tasks may not take (Revise).
	// Both are empty for a plan.
	prior map[int]flow.Task
	taken map[int]bool
	// reader is how a skill's models read its arguments' paths (Planner.Reader);
	// nil: as Chorus's own experts do.
	reader func(*skills.Skill) scope.Reader
}

func (v *validator) note(format string, args ...any) {
	v.notes = append(v.notes, fmt.Sprintf(format, clipArgs(args)...))
}

// clipArgs shortens long strings quoted in notes: a model that writes a
// 500-character file name should not flood the screen.
func clipArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(string); ok {
			a = text.Clip(s, maxNoteArg)
		}
		out[i] = a
	}
	return out
}

// maxNoteArg bounds, in runes, a value quoted in a note.
const maxNoteArg = 80

// refuse drops t because it names a path or URL the turn may not touch.
// The note names it (clipped, as any quoted value) and says how to allow
// it, in full: the fix is the part a user needs.
func (v *validator) refuse(t flow.Task, what string, err error) {
	var de *scope.DeniedError
	switch {
	case errors.As(err, &de) && de.URL && de.Reason != "":
		v.drop(t, "%s was not fetched: "+de.Reason+" — type that exact URL in your request to allow it", what)
	case errors.As(err, &de) && de.URL:
		v.drop(t, "%s was not fetched: neither you nor a task of this turn gave that URL — type it in your request to allow it", what)
	case errors.As(err, &de) && de.Root != "":
		v.drop(t, "%s is outside your folder on this server (%s) — Chorus reads only files there for you", what, de.Root)
	default:
		v.drop(t, "%s is not a file you gave this turn — attach it with @path or --attach to let Chorus read it", what)
	}
}

func (v *validator) drop(t flow.Task, format string, args ...any) {
	if _, ok := v.dropped[t.ID]; ok {
		return
	}
	reason := fmt.Sprintf(format, clipArgs(args)...)
	v.dropped[t.ID] = reason
	name := t.Task
	if name == "" {
		name = "(unnamed)"
	}
	v.notes = append(v.notes, fmt.Sprintf("dropped task %d (%s): %s", t.ID, clipArgs([]any{name})[0], reason))
}

// Validate turns raw tasks into a plan that can run. Earlier notes (from the
// parser) come first in the plan's notes.
func (p *Planner) Validate(tasks []flow.Task, cons flow.Constraints, notes []string) flow.Plan {
	cons, consNotes := p.CheckConstraints(cons)
	v := &validator{cat: p.Catalog, turn: p, scope: p.Scope, max: p.MaxTasks, notes: append(slices.Clone(notes), consNotes...), dropped: map[int]string{},
		reader: p.Reader}
	out := v.run(tasks)
	return flow.Plan{Tasks: out, Constraints: p.Constraints.Merge(cons), Notes: v.notes}
}

func (v *validator) run(in []flow.Task) []flow.Task {
	tasks := make([]flow.Task, 0, len(in))
	for _, t := range in {
		t.Args = cloneArgs(t.Args)
		t.Dep = slices.Clone(t.Dep)
		tasks = append(tasks, t)
	}
	if len(tasks) > v.max {
		v.note("the plan had %d tasks; kept the first %d", len(tasks), v.max)
		tasks = tasks[:v.max]
	}
	v.fixIDs(tasks)
	byID := map[int]*flow.Task{}
	skillOf := map[int]*skills.Skill{}
	for id, t := range v.prior {
		byID[id] = &t
		if s, _, ok := v.cat.Resolve(t.Task); ok {
			skillOf[id] = s
		}
	}
	for i := range tasks {
		byID[tasks[i].ID] = &tasks[i]
	}
	for i := range tasks {
		t := &tasks[i]
		s, exact, ok := v.cat.Resolve(t.Task)
		if !ok {
			if t.Task == "" {
				v.drop(*t, "it names no task")
			} else {
				v.drop(*t, "%q is not a known task (see /skills)", t.Task)
			}
			continue
		}
		if !exact {
			v.note("task %d: read %q as %s", t.ID, t.Task, s.Name)
			t.Task = s.Name
		}
		skillOf[t.ID] = s
		v.fixArgNames(t, s)
	}
	// References and dependencies.
	for i := range tasks {
		t := &tasks[i]
		if _, gone := v.dropped[t.ID]; gone {
			continue
		}
		v.fixRefs(t, byID)
	}
	v.cascade(tasks)
	v.breakCycles(tasks)
	v.cascade(tasks)
	for i := range tasks {
		t := &tasks[i]
		if _, gone := v.dropped[t.ID]; gone {
			continue
		}
		v.checkArgs(t, skillOf[t.ID], skillOf)
		v.gateArgs(t, skillOf[t.ID])
		if s := skillOf[t.ID]; s.Tool != nil {
			if _, gone := v.dropped[t.ID]; !gone {
				v.checkToolArgs(t, s)
			}
		}
	}
	v.cascade(tasks)

	var kept []flow.Task
	for _, t := range tasks {
		if _, gone := v.dropped[t.ID]; !gone {
			slices.Sort(t.Dep)
			if t.Dep == nil {
				t.Dep = []int{} // "dep": [] in events, as HuggingGPT writes it, never null
			}
			kept = append(kept, t)
		}
	}
	v.noteNamedElsewhere(kept)
	return v.order(kept)
}

// fixIDs gives every task a unique non-negative id. In a revision, a task
// that took an id the turn already used is numbered after every id in
// use; the other tasks' references to that id follow it unless the id
// is a task that succeeded, whose output stays what they mean.
func (v *validator) fixIDs(tasks []flow.Task) {
	next := 1
	seen := map[int]bool{}
	for id := range v.taken {
		next = max(next, id+1)
		seen[id] = true
	}
	for _, t := range tasks {
		if t.ID >= next && t.ID <= maxTaskID {
			next = t.ID + 1
		}
	}
	moved := map[int]int{}
	for i := range tasks {
		t := &tasks[i]
		switch {
		case t.ID == idMissing || t.ID < 0 || t.ID > maxTaskID:
			v.note("task %q had no usable id; numbered it %d", t.Task, next)
			t.ID = next
			next++
		case v.taken[t.ID]:
			v.note("task %d (%s) of the revision took the id of a task already in the plan; numbered it %d", t.ID, t.Task, next)
			if _, done := v.prior[t.ID]; !done && moved[t.ID] == 0 {
				moved[t.ID] = next
			}
			t.ID = next
			next++
		case seen[t.ID]:
			v.note("two tasks had id %d; renumbered the second (%s) to %d", t.ID, t.Task, next)
			t.ID = next
			next++
		}
		seen[t.ID] = true
	}
	if len(moved) > 0 {
		renumberRefs(tasks, moved)
	}
}

// renumberRefs points the dependencies and <resource>-N references of
// tasks at the new ids of the tasks moved (old id → new id).
func renumberRefs(tasks []flow.Task, moved map[int]int) {
	for i := range tasks {
		t := &tasks[i]
		for j, d := range t.Dep {
			if n, ok := moved[d]; ok {
				t.Dep[j] = n
			}
		}
		for k, val := range t.Args {
			t.Args[k] = flow.ReplaceRefs(val, func(m string, id int, parsed bool) string {
				if n, ok := moved[id]; ok && parsed {
					return flow.RefString(n)
				}
				return m
			})
		}
	}
}

func (v *validator) fixArgNames(t *flow.Task, s *skills.Skill) {
	v.composeArgs(t, s)
	for _, k := range slices.Sorted(maps.Keys(t.Args)) {
		val := strings.TrimSpace(t.Args[k])
		if val == "" {
			delete(t.Args, k)
			continue
		}
		t.Args[k] = val
		if _, ok := s.Arg(k); ok {
			continue
		}
		// The skill's own synonyms first ("text" is labels for a
		// zero-shot detector), then the names models invent for any skill.
		target := argAliases[strings.ToLower(k)]
		if a, ok := s.ArgNamed(k); ok {
			target = a.Name
		}
		if _, ok := s.Arg(target); !ok || target == "" {
			target = ""
			// A path or reference under an odd name: move it to the
			// skill's free argument of the same modality.
			m := v.literalModality(val)
			for _, a := range s.Args {
				if _, taken := t.Args[a.Name]; !taken && a.Type.Media() && a.Type == m {
					target = a.Name
					break
				}
			}
		}
		if _, taken := t.Args[target]; target == "" || taken {
			v.note("task %d: ignored argument %q (%s takes %s)", t.ID, k, s.Name, argNames(s))
			delete(t.Args, k)
			continue
		}
		v.note("task %d: read argument %q as %q", t.ID, k, target)
		t.Args[target] = val
		delete(t.Args, k)
	}
}

func (v *validator) literalModality(val string) skills.Modality {
	if len(flow.Refs(val)) > 0 {
		return ""
	}
	if p, ok := v.findFile(val); ok {
		if !v.scope.Allowed(p) {
			// Not even its first bytes are read: judge by the name.
			m, _ := skills.ModalityOfName(p)
			return m
		}
		return flow.ModalityOf(p)
	}
	return ""
}

func (v *validator) fixRefs(t *flow.Task, byID map[int]*flow.Task) {
	for _, k := range slices.Sorted(maps.Keys(t.Args)) {
		for _, n := range flow.Refs(t.Args[k]) {
			if n == t.ID {
				v.drop(*t, "argument %s refers to its own output", k)
				return
			}
			if _, ok := byID[n]; !ok && v.taken[n] {
				v.drop(*t, "argument %s uses <resource>-%d, but task %d did not succeed, so it has no output", k, n, n)
				return
			}
			if _, ok := byID[n]; !ok {
				v.drop(*t, "argument %s refers to <resource>-%d, but the plan has no task %d", k, n, n)
				return
			}
			if !slices.Contains(t.Dep, n) {
				// Not a repair: the schema has a task leave out what its
				// arguments already say it waits for.
				t.Dep = append(t.Dep, n)
			}
		}
	}
	var deps []int
	for _, d := range t.Dep {
		switch _, ok := byID[d]; {
		case d == t.ID:
			v.note("task %d: removed its dependency on itself", t.ID)
		case !ok && v.taken[d]:
			v.note("task %d: removed dependency on task %d, which did not succeed", t.ID, d)
		case !ok:
			v.note("task %d: removed dependency on task %d, which does not exist", t.ID, d)
		case slices.Contains(deps, d):
		default:
			deps = append(deps, d)
		}
	}
	t.Dep = deps
}

// cascade drops tasks whose dependencies were dropped, until nothing changes.
func (v *validator) cascade(tasks []flow.Task) {
	for changed := true; changed; {
		changed = false
		for _, t := range tasks {
			if _, gone := v.dropped[t.ID]; gone {
				continue
			}
			for _, d := range t.Dep {
				if _, gone := v.dropped[d]; gone {
					v.drop(t, "it depends on task %d, which was dropped", d)
					changed = true
					break
				}
			}
		}
	}
}

// breakCycles removes ordering-only dependencies that close a cycle; if a
// cycle remains (its tasks really consume each other's outputs) its tasks
// are dropped, since no order can run them.
func (v *validator) breakCycles(tasks []flow.Task) {
	live := func() []*flow.Task {
		var out []*flow.Task
		for i := range tasks {
			if _, gone := v.dropped[tasks[i].ID]; !gone {
				out = append(out, &tasks[i])
			}
		}
		return out
	}
	stuck := unsortable(live())
	if len(stuck) == 0 {
		return
	}
	for _, t := range stuck {
		refs := map[int]bool{}
		for _, val := range t.Args {
			for _, n := range flow.Refs(val) {
				refs[n] = true
			}
		}
		var deps []int
		for _, d := range t.Dep {
			if refs[d] || !slices.ContainsFunc(stuck, func(s *flow.Task) bool { return s.ID == d }) {
				deps = append(deps, d)
			} else {
				v.note("task %d: removed dependency on task %d to break a dependency cycle", t.ID, d)
			}
		}
		t.Dep = deps
	}
	stuck = unsortable(live())
	if len(stuck) == 0 {
		return
	}
	ids := make([]string, len(stuck))
	for i, t := range stuck {
		ids[i] = strconv.Itoa(t.ID)
	}
	for _, t := range stuck {
		v.drop(*t, "tasks %s depend on each other's outputs in a cycle, so none can run first", strings.Join(ids, ", "))
	}
}

// unsortable returns the tasks Kahn's algorithm cannot order: those in a
// cycle and those downstream of one.
func unsortable(tasks []*flow.Task) []*flow.Task {
	indeg := map[int]int{}
	users := map[int][]int{}
	present := map[int]bool{}
	for _, t := range tasks {
		present[t.ID] = true
	}
	for _, t := range tasks {
		for _, d := range t.Dep {
			if present[d] {
				indeg[t.ID]++
				users[d] = append(users[d], t.ID)
			}
		}
	}
	var queue []int
	for _, t := range tasks {
		if indeg[t.ID] == 0 {
			queue = append(queue, t.ID)
		}
	}
	done := map[int]bool{}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		done[id] = true
		for _, u := range users[id] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	var out []*flow.Task
	for _, t := range tasks {
		if !done[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

// checkArgs proves every argument has the modality its skill expects and
// every file exists, filling a missing media argument from the turn's
// attachments or the chat log when that is unambiguous.
func (v *validator) checkArgs(t *flow.Task, s *skills.Skill, skillOf map[int]*skills.Skill) {
	for _, a := range s.Args {
		val, ok := t.Args[a.Name]
		if !ok {
			// A tool's optional file is left out unless the plan gives
			// it: the tool decides what it does without one.
			if a.Type.Media() && !(a.Optional && s.Tool != nil) {
				if p, from := v.latestResource(a.Type); p != "" {
					t.Args[a.Name] = p
					if !v.onlyResource(a.Type) {
						// Among several files of the kind, the newest was
						// taken: say which.
						v.note("task %d: %s had no %s; using %s (%s)", t.ID, s.Name, a.Name, p, from)
					}
					continue
				}
			}
			if !a.Optional {
				if v.toolDefault(t, s, a) {
					continue
				}
				v.drop(*t, "%s needs the argument %q (%s) and the plan gives none", s.Name, a.Name, argKind(s, a))
				return
			}
			continue
		}
		refs := flow.Refs(val)
		switch {
		case len(refs) > 0 && a.Type.Media():
			if strings.TrimSpace(flow.ReplaceRefs(val, noRef)) != "" || len(refs) > 1 {
				v.drop(*t, "argument %s must be a single file or <resource>-N, not %q", a.Name, val)
				return
			}
			dep := skillOf[refs[0]]
			if dep != nil && !slices.Contains(dep.Outputs, a.Type) {
				v.drop(*t, "argument %s needs %s, but task %d (%s) produces %s", a.Name, flow.WithArticle(a.Type), refs[0], dep.Name, joinModalities(dep.Outputs))
				return
			}
		case a.Type.Media():
			if flow.IsURL(val) {
				if err := v.scope.CheckURL(val); err != nil {
					v.refuse(*t, val, err)
					return
				}
				continue
			}
			if err := v.scope.Outside(val); err != nil {
				v.refuse(*t, val, err) // never looked at: exists or not, the same note
				return
			}
			p, ok := v.findFile(val)
			if !ok {
				if st, err := v.stat(val); err == nil && !st.Mode().IsRegular() {
					v.drop(*t, "%s is not a regular file (a directory, pipe or device) — give a file", val)
				} else {
					v.drop(*t, "file %s does not exist", val)
				}
				return
			}
			if _, err := v.scope.Check(p); err != nil {
				v.refuse(*t, p, err)
				return
			}
			if m := flow.ModalityOf(p); m != "" && m != a.Type {
				v.drop(*t, "%s is %s, but argument %s needs %s", p, flow.WithArticle(m), a.Name, flow.WithArticle(a.Type))
				return
			}
			if p != val {
				v.note("task %d: %s → %s", t.ID, val, p)
			}
			t.Args[a.Name] = p
		case len(refs) > 0 && (a.Type == skills.Point || a.Type == skills.Box):
			// A visual prompt from an earlier detection: the executor
			// takes its best box (or that box's centre for a point).
			if strings.TrimSpace(flow.ReplaceRefs(val, noRef)) != "" || len(refs) > 1 {
				v.drop(*t, "argument %s must be numbers or a single <resource>-N of a detection, not %q", a.Name, val)
				return
			}
			if dep := skillOf[refs[0]]; dep != nil && !slices.Contains(boxSources, dep.Name) {
				v.drop(*t, "argument %s takes a box from %s, but task %d is %s", a.Name, strings.Join(boxSources, " or "), refs[0], dep.Name)
				return
			}
		case a.Type == skills.Point || a.Type == skills.Box:
			want := map[skills.Modality]int{skills.Point: 2, skills.Box: 4}[a.Type]
			norm, ok := parseCoords(val, want)
			if !ok {
				if a.Optional {
					v.note("task %d: ignored %s %q (want %d numbers)", t.ID, a.Name, val, want)
					delete(t.Args, a.Name)
					continue
				}
				v.drop(*t, "argument %s %q is not %d numbers", a.Name, val, want)
				return
			}
			t.Args[a.Name] = norm
		}
	}
}

// findFile resolves a path as the model wrote it: as given, relative to the
// working directory, with ~ expanded, or by base name among the turn's
// attachments and the chat log's resources.
func (v *validator) findFile(p string) (string, bool) {
	p = strings.Trim(strings.TrimSpace(p), `"'`)
	p = strings.TrimPrefix(p, "file://")
	if p == "" {
		return "", false
	}
	// As the scope reads it: "~" its home, a relative path from its
	// working folder (the engine's Options.Home and WorkDir, or a confined
	// user's folder) — never the process's.
	abs, err := v.scope.Abs(p)
	if err != nil {
		return "", false // a confined user's path outside their folder is not looked at
	}
	if flow.IsRegularFile(abs) {
		return abs, true
	}
	base := filepath.Base(p)
	for _, r := range v.knownResources() {
		if filepath.Base(r) == base && flow.IsRegularFile(r) {
			return r, true
		}
	}
	return "", false
}

// stat is os.Stat of p as the scope reads it (findFile).
func (v *validator) stat(p string) (os.FileInfo, error) {
	abs, err := v.scope.Abs(p)
	if err != nil {
		return nil, err
	}
	return os.Stat(abs)
}

// knownResources lists the turn's attachments, then the chat log's
// resources newest first.
func (v *validator) knownResources() []string {
	out := slices.Clone(v.turn.Attachments)
	for i := len(v.turn.History) - 1; i >= 0; i-- {
		out = append(out, v.turn.History[i].Resources...)
	}
	return out
}

// latestResource returns the newest known file of modality m: this turn's
// last such attachment, else the chat log's newest.
func (v *validator) latestResource(m skills.Modality) (path, from string) {
	for i := len(v.turn.Attachments) - 1; i >= 0; i-- {
		if p := v.turn.Attachments[i]; flow.IsRegularFile(p) && flow.ModalityOf(p) == m {
			return p, "attached"
		}
	}
	for i := len(v.turn.History) - 1; i >= 0; i-- {
		rs := v.turn.History[i].Resources
		for j := len(rs) - 1; j >= 0; j-- {
			// The newest the turn may read: a session's other files
			// (data from disk) are not even looked into.
			if v.scope.Allowed(rs[j]) && flow.IsRegularFile(rs[j]) && flow.ModalityOf(rs[j]) == m {
				return rs[j], "from the chat log"
			}
		}
	}
	return "", ""
}

// onlyResource reports whether the turn holds exactly one file of
// modality m — attached, named, or in the chat log. A media argument a
// plan leaves out then can mean only that file: the schema's shortest
// plans rely on it (PlanJSON), and filling it in is no repair.
func (v *validator) onlyResource(m skills.Modality) bool {
	return len(v.turn.resources(m)) == 1
}

// resources lists the distinct regular files of modality m the turn
// holds and may read: its attachments, then its chat log's resources,
// newest first. A session's other files (data from disk) are not even
// looked into, as latestResource does not take them. A planner without a
// scope (PlanJSON's, which writes a plan and runs nothing) counts them all.
func (p *Planner) resources(m skills.Modality) []string {
	var out []string
	add := func(f string) {
		if !slices.Contains(out, f) && (p.Scope == nil || p.Scope.Allowed(f)) && flow.IsRegularFile(f) && flow.ModalityOf(f) == m {
			out = append(out, f)
		}
	}
	for i := len(p.Attachments) - 1; i >= 0; i-- {
		add(p.Attachments[i])
	}
	for i := len(p.History) - 1; i >= 0; i-- {
		for j := len(p.History[i].Resources) - 1; j >= 0; j-- {
			add(p.History[i].Resources[j])
		}
	}
	return out
}

// order sorts tasks so each comes after its dependencies, keeping the
// planner's order otherwise.
func (v *validator) order(tasks []flow.Task) []flow.Task {
	placed := map[int]bool{}
	for id := range v.prior {
		placed[id] = true // a revision's tasks may follow the plan's
	}
	out := make([]flow.Task, 0, len(tasks))
	for len(out) < len(tasks) {
		progress := false
		for _, t := range tasks {
			if placed[t.ID] {
				continue
			}
			ready := true
			for _, d := range t.Dep {
				if !placed[d] {
					ready = false
					break
				}
			}
			if ready {
				placed[t.ID] = true
				out = append(out, t)
				progress = true
			}
		}
		if !progress { // unreachable after breakCycles; never loop forever
			break
		}
	}
	for i := range out {
		if out[i].ID != tasks[i].ID {
			v.note("reordered the tasks so each runs after the tasks it depends on")
			break
		}
	}
	return out
}

// boxSources are the skills whose results a box or point argument may
// take through <resource>-N: detections, whose boxes the executor reads.
var boxSources = []string{"object-detection", "zero-shot-object-detection"}

func parseCoords(s string, n int) (string, bool) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" ,;()[]xX", r) })
	if len(fields) != n {
		return "", false
	}
	for _, f := range fields {
		if x, err := strconv.ParseFloat(f, 64); err != nil || x < 0 || x > 1e6 {
			return "", false
		}
	}
	return strings.Join(fields, ","), true
}

func argNames(s *skills.Skill) string {
	names := make([]string, len(s.Args))
	for i, a := range s.Args {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

func cloneArgs(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// noRef blanks a reference (ReplaceRefs): what is left is the value's text.
func noRef(string, int, bool) string { return "" }

// Early reports whether the last of tasks read — the task objects of a
// plan still being written, in order — can start before the plan is
// complete, and returns it as validated: the tasks read so far are
// validated as a plan of their own, and the last must come through
// unchanged in id, within the plan's cap, named by no earlier task's id,
// and not be a tool (an MCP server's tool may act on the world: a run the
// final plan withdrew could not be taken back, so it waits for that plan).
// Then the whole plan's validation can only keep it as it is, short of a
// plan that is re-asked. Whether its inputs are ready is the caller's.
func (p *Planner) Early(read []flow.Task) (flow.Task, bool) {
	last := read[len(read)-1]
	if len(read) > p.MaxTasks || last.ID == idMissing || last.ID < 0 || last.ID > maxTaskID {
		return flow.Task{}, false
	}
	if slices.ContainsFunc(read[:len(read)-1], func(o flow.Task) bool { return o.ID == last.ID }) {
		return flow.Task{}, false // a duplicate id: the whole plan renumbers it
	}
	plan := p.Validate(read, flow.Constraints{}, nil)
	task, ok := plan.Task(last.ID)
	if !ok {
		return flow.Task{}, false
	}
	if s, ok := p.Catalog.Skill(task.Task); !ok || s.Tool != nil {
		return flow.Task{}, false
	}
	return task, true
}

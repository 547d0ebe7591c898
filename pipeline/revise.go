package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/text"
)

// The fifth step: when a task fails for good — every candidate failed, no
// model qualifies, an output of the wrong kind — HuggingGPT, HIVE and
// LLaVA-Plus run the plan to its end and explain the failure; Chorus asks
// the controller once more, before the answer, to revise the rest of the
// plan (LLMCompiler's replanning, Kim et al. 2023). The call continues the
// turn's conversation (STAGE: REVISE) with what ran, as the answer stage
// sees it, and what failed; the reply is a plan under the plan schema,
// holding only new tasks, which may use the outputs of tasks that
// succeeded. It is validated as any plan — the same trust rule, the
// plan's constraints, approval for tools — and run by the same dispatcher;
// then the answer is written from everything that ran.
//
// Bounded: at most Options.Revise revisions a turn (planner.revise, 1 by
// default; 0 turns them off), each answering only failures no earlier one
// answered. None when every task succeeded — a turn that goes well costs no
// call more — when the user cancelled, refused a tool, or gave an input no
// route can use (endpoints.ErrBadInput: a file that does not exist). A
// revision comes before the answer call starts — the early answer
// (early.go) waits while one is due — or, when a task the early answer
// named fails, after that answer and its correction line: its tasks run,
// and the answer goes on with what they made (respond.go).

// fault says why a run failed, for the revision's rule.
type fault int

const (
	// faultNone: the run succeeded, or did not fail on its own — a
	// dependency failed, the user cancelled, the final plan withdrew it,
	// the output directory could not be made.
	faultNone fault = iota
	// faultForGood: every route was tried, no model qualifies, the
	// output was of the wrong kind, the time ran out — another skill may
	// still serve the request.
	faultForGood
	// faultInput: the user's input cannot be used (endpoints.ErrBadInput);
	// no other route fixes it.
	faultInput
	// faultRefused: the user refused the tool; no plan goes around that.
	faultRefused
)

// Revision is one revision of a turn's plan: the failed tasks it answers,
// the tasks it added (validated, numbered after every id the turn used)
// and the validator's repairs. No tasks means the controller found no
// other way to serve the request.
type Revision struct {
	After []FailedTask `json:"after"`
	Tasks []Task       `json:"tasks"`
	Notes []string     `json:"notes,omitempty"`
}

// FailedTask is a task that failed for good, with why.
type FailedTask struct {
	ID    int    `json:"id"`
	Task  string `json:"task"`
	Error string `json:"error"`
}

// String says the revision in one line for people — the report, the log,
// the export: "revised after task 2 (text-to-video) failed: …; added task
// 4 (text-to-image)".
func (r Revision) String() string {
	var b strings.Builder
	b.WriteString("revised after ")
	for i, f := range r.After {
		if i > 0 {
			b.WriteString(listSep(i, len(r.After)))
		}
		fmt.Fprintf(&b, "task %d (%s)", f.ID, f.Task)
	}
	if len(r.After) == 1 {
		fmt.Fprintf(&b, " failed: %s", text.OneLine(r.After[0].Error, 160))
	} else {
		b.WriteString(" failed")
	}
	if len(r.Tasks) == 0 {
		b.WriteString("; the controller found no other way")
		return b.String()
	}
	b.WriteString("; added ")
	for i, t := range r.Tasks {
		if i > 0 {
			b.WriteString(listSep(i, len(r.Tasks)))
		}
		fmt.Fprintf(&b, "task %d (%s)", t.ID, t.Task)
	}
	return b.String()
}

// listSep separates the i-th item of an English list of n: ", " or " and ".
func listSep(i, n int) string {
	if i == n-1 {
		return " and "
	}
	return ", "
}

// revisable reports whether r failed for good and no revision answered it
// yet.
func revisable(r *taskRun, answered map[int]bool) bool {
	return r.status == StatusError && r.fault == faultForGood && !r.cancelled && r.withdrawn == "" && !answered[r.task.ID]
}

// revisionDue reports whether a finished run holds a failure the next
// revision would answer, and the turn may still revise: the answer must
// not start before it — an early answer (early.go) waits for the
// revision instead. Called with d.mu held.
func (d *dispatcher) revisionDue() bool {
	return d.revised < d.e.opts.Revise && slices.ContainsFunc(d.current, func(r *taskRun) bool { return r.finished && revisable(r, d.answered) })
}

// nextFailures takes the failures the next revision answers — none when
// no revision is due, or while an early answer waits for the tasks it
// named (finish) — and counts the revision.
func (d *dispatcher) nextFailures() []*taskRun {
	d.mu.Lock()
	defer d.mu.Unlock()
	if (d.answering && !d.waited) || !d.revisionDue() {
		return nil
	}
	if d.answered == nil {
		d.answered = map[int]bool{}
	}
	var failed []*taskRun
	for _, r := range d.current {
		if r.finished && revisable(r, d.answered) {
			failed = append(failed, r)
		}
	}
	for _, r := range failed {
		d.answered[r.task.ID] = true
	}
	d.revised++
	return failed
}

// revise is the fifth step, after the plan's tasks ran: while failures no
// revision answered remain and the turn may revise again, it asks the
// controller for new tasks and runs them. It returns every run of the
// turn, the plan's then each revision's, and the revisions made; the error
// is the turn's cancellation.
func (d *dispatcher) revise(p Plan, runs []*taskRun) ([]*taskRun, []Revision, error) {
	var revs []Revision
	for d.ctx.Err() == nil {
		failed := d.nextFailures()
		if len(failed) == 0 {
			break
		}
		d.emit(StageEvent{Stage: StageRevision})
		rev, ok, err := d.askRevision(runs, failed, p.Constraints)
		if err != nil {
			return runs, revs, err
		}
		if !ok {
			break // the controller could not be asked; the error event said why
		}
		revs = append(revs, rev)
		d.emit(PlanRevisionEvent{Revision: rev})
		if len(rev.Tasks) == 0 {
			break
		}
		// The plan's constraints bind the revision's tasks: a revision
		// never loosens what the user asked for.
		runs = d.more(Plan{Tasks: rev.Tasks, Constraints: p.Constraints})
	}
	return runs, revs, nil
}

// more runs tasks added to the turn after its plan ran: selected (one
// controller call for the real choices) and run as a DAG after the tasks
// they use, as the plan's were. It returns every run of the turn.
func (d *dispatcher) more(p Plan) []*taskRun {
	d.mu.Lock()
	for _, task := range p.Tasks {
		d.current = append(d.current, d.newRun(task, false))
	}
	d.phase, d.asked = settled, make(chan struct{})
	d.mu.Unlock()
	d.emit(StageEvent{Stage: StageSelection})
	d.choose(p)
	d.emit(StageEvent{Stage: StageExecution})
	return d.start()
}

// askRevision makes the revision call and validates its reply, and with
// plan review shows it to the user (turned down, it adds nothing), under
// the plan's constraints cons. ok is false when the controller could not
// be asked (an error event says why; the turn goes on to its answer); err
// is the turn's cancellation.
func (d *dispatcher) askRevision(runs, failed []*taskRun, cons Constraints) (rev Revision, ok bool, err error) {
	for _, r := range failed {
		rev.After = append(rev.After, FailedTask{ID: r.task.ID, Task: r.task.Task, Error: r.err})
	}
	rev.Tasks = []Task{}
	msg := d.e.reviseMessage(d.t, runs, failed)
	d.emit(DebugEvent{Stage: StageRevision, Kind: "prompt", Content: msg.Content})
	start := time.Now()
	reply, err := d.e.callController(d.ctx, controller.ChatCall{Messages: d.script.with(msg), Format: planSchema(d.e.cat), NumPredict: d.e.ctl.Options().PlanTokens})
	if err != nil {
		if d.ctx.Err() != nil {
			return rev, false, fmt.Errorf("%w: %w", ErrCancelled, d.ctx.Err())
		}
		d.emit(ErrorEvent{Stage: StageRevision, Message: "the plan could not be revised: " + err.Error()})
		return rev, false, nil
	}
	d.script.record(StageRevision, reply, time.Since(start), d.emit)
	d.emit(DebugEvent{Stage: StageRevision, Kind: "reply", Content: reply.Content})
	raw, perr := parsePlan(reply.Content)
	switch {
	case perr != nil && reply.Truncated():
		rev.Notes = append(rev.Notes, fmt.Sprintf("the revision was cut off at the %d-token limit (controller.plan_tokens); nothing was added", d.e.ctl.Options().PlanTokens))
		return rev, true, nil
	case perr != nil:
		rev.Notes = append(rev.Notes, "the revision could not be read ("+perr.Error()+"); nothing was added")
		return rev, true, nil
	}
	// The answer continues after the revision, as it does after the plan.
	d.script.add(msg, controller.Message{Role: "assistant", Content: reply.Content})
	// Tasks written without an id (the plan schema has none) continue
	// the turn's numbering in the order written: the first is one past
	// the highest id so far, as the message said.
	last := lastID(runs)
	for i := range raw.Tasks {
		if i < len(raw.placed) && raw.placed[i] {
			raw.Tasks[i].ID += last
		}
	}
	p := d.e.validateRevision(raw, d.t, runs)
	rev.Tasks, rev.Notes = p.Tasks, p.Notes
	if d.t.Review == nil || len(rev.Tasks) == 0 {
		return rev, true, nil
	}
	// With plan review nothing runs unseen: the revision is a plan.
	edited, err := d.t.Review(d.ctx, Plan{Tasks: rev.Tasks, Constraints: cons, Notes: rev.Notes})
	switch {
	case d.ctx.Err() != nil:
		return rev, false, fmt.Errorf("%w: %w", ErrCancelled, d.ctx.Err())
	case err != nil:
		rev.Tasks = []Task{}
		rev.Notes = append(rev.Notes, "the revision was turned down in review: "+text.OneLine(err.Error(), 200))
	default:
		p = d.e.validateRevision(rawPlan{Tasks: edited.Tasks}, d.t, runs)
		rev.Tasks, rev.Notes = p.Tasks, append(rev.Notes, p.Notes...)
	}
	return rev, true, nil
}

// reviseMessage is the revision call's message: what failed, what ran —
// the results as the answer stage sees them, within the same budget — and
// what the reply must be. Everything a model, tool or file wrote is quoted
// as data; outside the quotes are only ids and skill names.
func (e *Engine) reviseMessage(t Turn, runs, failed []*taskRun) controller.Message {
	var b strings.Builder
	b.WriteString("Request: " + t.Request)
	ids := func(rs []*taskRun) string {
		s := make([]string, len(rs))
		for i, r := range rs {
			s[i] = fmt.Sprintf("%d (%s)", r.task.ID, r.task.Task)
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, "\nFailed for good (every model tried, or none could run it): task %s.", ids(failed))
	var blocked, done []*taskRun
	for _, r := range runs {
		switch {
		case r.status == StatusOK:
			done = append(done, r)
		case r.skipped && r.fault == faultNone && !r.cancelled:
			blocked = append(blocked, r)
		}
	}
	if len(blocked) > 0 {
		fmt.Fprintf(&b, "\nNot run, since they needed a failed task: task %s.", ids(blocked))
	}
	results, _ := json.MarshalIndent(resultsForPrompt(runs, e.opts.ResultBudget), "", " ")
	b.WriteString("\nResults of the tasks run so far, with why each failed:\n" + quoteData(string(results)))
	b.WriteString("\nRevise the rest of the plan so the request is still served, another way: reply in the plan's format with")
	b.WriteString(" only NEW tasks (another skill, e.g. a still image when a video failed), never the same failed task again;")
	fmt.Fprintf(&b, " they are numbered from %d in the order written.", lastID(runs)+1)
	if len(done) > 0 {
		fmt.Fprintf(&b, " \"<resource>-N\" may also be the output of a task that succeeded: task %s.", ids(done))
	}
	b.WriteString(" Leave out \"constraints\": the plan's stand. Reply {} when nothing else can serve the request.")
	return stageMessage(markRevise, b.String())
}

// lastID is the highest task id of runs: a revision's tasks are numbered
// after it.
func lastID(runs []*taskRun) int {
	n := 0
	for _, r := range runs {
		n = max(n, r.task.ID)
	}
	return n
}

// validateRevision validates a revision's tasks as a plan whose earlier
// tasks are the turn's runs: the tasks that succeeded are there to be used
// (<resource>-N) and every id the turn used is taken. A task that repeats
// one that succeeded (the same skill and arguments — a model often writes
// the whole plan again) is not run twice: its users take that task's
// output. One that repeats a failed task is dropped: it would fail again.
// The revision's own constraints are not used: its tasks run under the
// plan's.
func (e *Engine) validateRevision(raw rawPlan, t Turn, runs []*taskRun) Plan {
	v := &validator{cat: e.cat, turn: t, scope: e.access(t), max: e.opts.MaxTasks, notes: slices.Clone(raw.Notes), dropped: map[int]string{},
		prior: map[int]Task{}, taken: map[int]bool{}, reader: e.skillReader(t)}
	for _, r := range runs {
		v.taken[r.task.ID] = true
		if r.status == StatusOK {
			v.prior[r.task.ID] = r.task
		}
	}
	if !raw.Constraints.IsZero() {
		v.note("the revision's constraints (%s) were not used: its tasks run under the plan's", raw.Constraints.String())
	}
	tasks := repeatsDropped(v, raw.Tasks, runs)
	return Plan{Tasks: v.run(tasks), Notes: v.notes}
}

// repeatsDropped removes the tasks of a revision that repeat one of runs
// (v.prior set):
// the users of a repeat of a task that succeeded take that task's output;
// a repeat of a failed task goes, with a note (and the validator drops its
// users, whose input it was).
func repeatsDropped(v *validator, tasks []Task, runs []*taskRun) []Task {
	name := func(n string) string {
		if s, _, ok := v.cat.Resolve(n); ok {
			return s.Name
		}
		return n
	}
	// The same skill with the same arguments, whose references name tasks
	// that succeeded: a reference to any other id is to a task of the
	// revision (or a failed one), another input however it is written.
	same := func(a Task, r *taskRun) bool {
		if name(a.Task) != r.task.Task || len(a.Args) != len(r.task.Args) {
			return false
		}
		for k, val := range a.Args {
			if strings.TrimSpace(val) != r.task.Args[k] {
				return false
			}
			for _, n := range Refs(val) {
				if _, ok := v.prior[n]; !ok {
					return false
				}
			}
		}
		return true
	}
	moved := map[int]int{}
	var out []Task
	for _, t := range tasks {
		i := slices.IndexFunc(runs, func(r *taskRun) bool { return same(t, r) })
		switch {
		case i < 0:
			out = append(out, t)
		case runs[i].status == StatusOK:
			if t.ID != runs[i].task.ID {
				moved[t.ID] = runs[i].task.ID
			}
			v.note("the revision repeated task %d (%s), which succeeded: its output is used", runs[i].task.ID, runs[i].task.Task)
		default:
			v.note("dropped task %d (%s) of the revision: it repeats task %d, which failed", t.ID, name(t.Task), runs[i].task.ID)
			if t.ID != runs[i].task.ID {
				moved[t.ID] = runs[i].task.ID
			}
		}
	}
	out = slices.Clone(out)
	for i := range out {
		out[i].Args, out[i].Dep = cloneArgs(out[i].Args), slices.Clone(out[i].Dep)
	}
	if len(moved) > 0 {
		renumberRefs(out, moved)
	}
	return out
}

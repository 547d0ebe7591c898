package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
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

// revisable reports whether r failed for good and no revision answered it
// yet.
func revisable(r *taskRun, answered map[int]bool) bool {
	return r.Status == flow.StatusError && r.Fault == flow.FaultForGood && !r.Cancelled && r.withdrawn == "" && !answered[r.Task.ID]
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
		d.answered[r.Task.ID] = true
	}
	d.revised++
	return failed
}

// revise is the fifth step, after the plan's tasks ran: while failures no
// revision answered remain and the turn may revise again, it asks the
// controller for new tasks and runs them. It returns every run of the
// turn, the plan's then each revision's, and the revisions made; the error
// is the turn's cancellation.
func (d *dispatcher) revise(p flow.Plan, runs []*taskRun) ([]*taskRun, []flow.Revision, error) {
	var revs []flow.Revision
	for d.ctx.Err() == nil {
		failed := d.nextFailures()
		if len(failed) == 0 {
			break
		}
		d.emit(flow.StageEvent{Stage: flow.StageRevision})
		rev, ok, err := d.askRevision(runs, failed, p.Constraints)
		if err != nil {
			return runs, revs, err
		}
		if !ok {
			break // the controller could not be asked; the error event said why
		}
		revs = append(revs, rev)
		d.emit(flow.PlanRevisionEvent{Revision: rev})
		if len(rev.Tasks) == 0 {
			break
		}
		// The plan's constraints bind the revision's tasks: a revision
		// never loosens what the user asked for.
		runs = d.more(flow.Plan{Tasks: rev.Tasks, Constraints: p.Constraints})
	}
	return runs, revs, nil
}

// more runs tasks added to the turn after its plan ran: selected (one
// controller call for the real choices) and run as a DAG after the tasks
// they use, as the plan's were. It returns every run of the turn.
func (d *dispatcher) more(p flow.Plan) []*taskRun {
	d.mu.Lock()
	for _, task := range p.Tasks {
		d.current = append(d.current, d.newRun(task, false))
	}
	d.phase, d.asked = settled, make(chan struct{})
	d.mu.Unlock()
	d.emit(flow.StageEvent{Stage: flow.StageSelection})
	d.choose(p)
	d.emit(flow.StageEvent{Stage: flow.StageExecution})
	return d.start()
}

// askRevision makes the revision call and validates its reply, and with
// plan review shows it to the user (turned down, it adds nothing), under
// the plan's constraints cons. ok is false when the controller could not
// be asked (an error event says why; the turn goes on to its answer); err
// is the turn's cancellation.
func (d *dispatcher) askRevision(runs, failed []*taskRun, cons flow.Constraints) (rev flow.Revision, ok bool, err error) {
	for _, r := range failed {
		rev.After = append(rev.After, flow.FailedTask{ID: r.Task.ID, Task: r.Task.Task, Error: r.Err})
	}
	rev.Tasks = []flow.Task{}
	msg := d.e.reviseMessage(d.t, runs, failed)
	d.emit(flow.DebugEvent{Stage: flow.StageRevision, Kind: "prompt", Content: msg.Content})
	start := time.Now()
	reply, err := flow.Call(d.ctx, d.e.ctl, controller.ChatCall{Messages: d.script.With(msg), Format: planSchema(d.e.cat), NumPredict: d.e.ctl.Options().PlanTokens})
	if err != nil {
		if d.ctx.Err() != nil {
			return rev, false, flow.Cancelled(d.ctx)
		}
		d.emit(flow.ErrorEvent{Stage: flow.StageRevision, Message: "the plan could not be revised: " + err.Error()})
		return rev, false, nil
	}
	d.script.Record(flow.StageRevision, reply, time.Since(start), d.emit)
	d.emit(flow.DebugEvent{Stage: flow.StageRevision, Kind: "reply", Content: reply.Content})
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
	d.script.Add(msg, controller.Message{Role: "assistant", Content: reply.Content})
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
	edited, err := d.t.Review(d.ctx, flow.Plan{Tasks: rev.Tasks, Constraints: cons, Notes: rev.Notes})
	switch {
	case d.ctx.Err() != nil:
		return rev, false, flow.Cancelled(d.ctx)
	case err != nil:
		rev.Tasks = []flow.Task{}
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
			s[i] = fmt.Sprintf("%d (%s)", r.Task.ID, r.Task.Task)
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, "\nFailed for good (every model tried, or none could run it): task %s.", ids(failed))
	var blocked, done []*taskRun
	for _, r := range runs {
		switch {
		case r.Status == flow.StatusOK:
			done = append(done, r)
		case r.Skipped && r.Fault == flow.FaultNone && !r.Cancelled:
			blocked = append(blocked, r)
		}
	}
	if len(blocked) > 0 {
		fmt.Fprintf(&b, "\nNot run, since they needed a failed task: task %s.", ids(blocked))
	}
	results, _ := json.MarshalIndent(flow.Results(records(runs), e.opts.ResultBudget), "", " ")
	b.WriteString("\nResults of the tasks run so far, with why each failed:\n" + flow.QuoteData(string(results)))
	b.WriteString("\nRevise the rest of the plan so the request is still served, another way: reply in the plan's format with")
	b.WriteString(" only NEW tasks (another skill, e.g. a still image when a video failed), never the same failed task again;")
	fmt.Fprintf(&b, " they are numbered from %d in the order written.", lastID(runs)+1)
	if len(done) > 0 {
		fmt.Fprintf(&b, " \"<resource>-N\" may also be the output of a task that succeeded: task %s.", ids(done))
	}
	b.WriteString(" Leave out \"constraints\": the plan's stand. Reply {} when nothing else can serve the request.")
	return flow.StageMessage(flow.MarkRevise, b.String())
}

// lastID is the highest task id of runs: a revision's tasks are numbered
// after it.
func lastID(runs []*taskRun) int {
	n := 0
	for _, r := range runs {
		n = max(n, r.Task.ID)
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
func (e *Engine) validateRevision(raw rawPlan, t Turn, runs []*taskRun) flow.Plan {
	v := &validator{cat: e.cat, turn: t, scope: e.access(t), max: e.opts.MaxTasks, notes: slices.Clone(raw.Notes), dropped: map[int]string{},
		prior: map[int]flow.Task{}, taken: map[int]bool{}, reader: execution.SkillReader(e.router, t.Workspace)}
	for _, r := range runs {
		v.taken[r.Task.ID] = true
		if r.Status == flow.StatusOK {
			v.prior[r.Task.ID] = r.Task
		}
	}
	if !raw.Constraints.IsZero() {
		v.note("the revision's constraints (%s) were not used: its tasks run under the plan's", raw.Constraints.String())
	}
	tasks := repeatsDropped(v, raw.Tasks, runs)
	return flow.Plan{Tasks: v.run(tasks), Notes: v.notes}
}

// repeatsDropped removes the tasks of a revision that repeat one of runs
// (v.prior set):
// the users of a repeat of a task that succeeded take that task's output;
// a repeat of a failed task goes, with a note (and the validator drops its
// users, whose input it was).
func repeatsDropped(v *validator, tasks []flow.Task, runs []*taskRun) []flow.Task {
	name := func(n string) string {
		if s, _, ok := v.cat.Resolve(n); ok {
			return s.Name
		}
		return n
	}
	// The same skill with the same arguments, whose references name tasks
	// that succeeded: a reference to any other id is to a task of the
	// revision (or a failed one), another input however it is written.
	same := func(a flow.Task, r *taskRun) bool {
		if name(a.Task) != r.Task.Task || len(a.Args) != len(r.Task.Args) {
			return false
		}
		for k, val := range a.Args {
			if strings.TrimSpace(val) != r.Task.Args[k] {
				return false
			}
			for _, n := range flow.Refs(val) {
				if _, ok := v.prior[n]; !ok {
					return false
				}
			}
		}
		return true
	}
	moved := map[int]int{}
	var out []flow.Task
	for _, t := range tasks {
		i := slices.IndexFunc(runs, func(r *taskRun) bool { return same(t, r) })
		switch {
		case i < 0:
			out = append(out, t)
		case runs[i].Status == flow.StatusOK:
			if t.ID != runs[i].Task.ID {
				moved[t.ID] = runs[i].Task.ID
			}
			v.note("the revision repeated task %d (%s), which succeeded: its output is used", runs[i].Task.ID, runs[i].Task.Task)
		default:
			v.note("dropped task %d (%s) of the revision: it repeats task %d, which failed", t.ID, name(t.Task), runs[i].Task.ID)
			if t.ID != runs[i].Task.ID {
				moved[t.ID] = runs[i].Task.ID
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

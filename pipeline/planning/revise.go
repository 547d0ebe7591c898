package planning

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
)

// Revise is the revision call — the fifth step, after tasks failed for
// good — and the validation of its reply: runs are the turn's runs so far,
// failed the failures it answers. The reply is a plan holding only new
// tasks, numbered after every id the turn used, validated as any plan
// (ValidateRevision). ok is false when the controller could not be asked
// (an error event says why; the turn goes on to its answer); err is the
// turn's cancellation.
func (p *Planner) Revise(ctx context.Context, runs, failed []*flow.TaskRun) (rev flow.Revision, ok bool, err error) {
	for _, r := range failed {
		rev.After = append(rev.After, flow.FailedTask{ID: r.Task.ID, Task: r.Task.Task, Error: r.Err})
	}
	rev.Tasks = []flow.Task{}
	msg := p.reviseMessage(runs, failed)
	p.Emit(flow.DebugEvent{Stage: flow.StageRevision, Kind: "prompt", Content: msg.Content})
	start := time.Now()
	reply, err := flow.Call(ctx, p.Controller, controller.ChatCall{Messages: p.Script.With(msg), Format: Schema(p.Catalog), NumPredict: p.Controller.Options().PlanTokens})
	if err != nil {
		if ctx.Err() != nil {
			return rev, false, flow.Cancelled(ctx)
		}
		p.Emit(flow.ErrorEvent{Stage: flow.StageRevision, Message: "the plan could not be revised: " + err.Error()})
		return rev, false, nil
	}
	p.Script.Record(flow.StageRevision, reply, time.Since(start), p.Emit)
	p.Emit(flow.DebugEvent{Stage: flow.StageRevision, Kind: "reply", Content: reply.Content})
	raw, perr := parsePlan(reply.Content)
	switch {
	case perr != nil && reply.Truncated():
		rev.Notes = append(rev.Notes, fmt.Sprintf("the revision was cut off at the %d-token limit (controller.plan_tokens); nothing was added", p.Controller.Options().PlanTokens))
		return rev, true, nil
	case perr != nil:
		rev.Notes = append(rev.Notes, "the revision could not be read ("+perr.Error()+"); nothing was added")
		return rev, true, nil
	}
	// The answer continues after the revision, as it does after the plan.
	p.Script.Add(msg, controller.Message{Role: "assistant", Content: reply.Content})
	// Tasks written without an id (the plan schema has none) continue
	// the turn's numbering in the order written: the first is one past
	// the highest id so far, as the message said.
	last := lastID(runs)
	for i := range raw.Tasks {
		if i < len(raw.placed) && raw.placed[i] {
			raw.Tasks[i].ID += last
		}
	}
	plan := p.validateRevision(raw, runs)
	rev.Tasks, rev.Notes = plan.Tasks, plan.Notes
	return rev, true, nil
}

// ValidateRevision validates tasks as a revision after runs: a revision
// the user edited in review.
func (p *Planner) ValidateRevision(tasks []flow.Task, runs []*flow.TaskRun) flow.Plan {
	return p.validateRevision(rawPlan{Tasks: tasks}, runs)
}

// reviseMessage is the revision call's message: what failed, what ran —
// the results as the answer stage sees them, within the same budget — and
// what the reply must be. Everything a model, tool or file wrote is quoted
// as data; outside the quotes are only ids and skill names.
func (p *Planner) reviseMessage(runs, failed []*flow.TaskRun) controller.Message {
	var b strings.Builder
	b.WriteString("Request: " + p.Request)
	ids := func(rs []*flow.TaskRun) string {
		s := make([]string, len(rs))
		for i, r := range rs {
			s[i] = fmt.Sprintf("%d (%s)", r.Task.ID, r.Task.Task)
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, "\nFailed for good (every model tried, or none could run it): task %s.", ids(failed))
	var blocked, done []*flow.TaskRun
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
	results, _ := json.MarshalIndent(flow.Results(runs, p.ResultBudget), "", " ")
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
func lastID(runs []*flow.TaskRun) int {
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
func (p *Planner) validateRevision(raw rawPlan, runs []*flow.TaskRun) flow.Plan {
	v := &validator{cat: p.Catalog, turn: p, scope: p.Scope, max: p.MaxTasks, notes: slices.Clone(raw.Notes), dropped: map[int]string{},
		prior: map[int]flow.Task{}, taken: map[int]bool{}, reader: p.Reader}
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
func repeatsDropped(v *validator, tasks []flow.Task, runs []*flow.TaskRun) []flow.Task {
	name := func(n string) string {
		if s, _, ok := v.cat.Resolve(n); ok {
			return s.Name
		}
		return n
	}
	// The same skill with the same arguments, whose references name tasks
	// that succeeded: a reference to any other id is to a task of the
	// revision (or a failed one), another input however it is written.
	same := func(a flow.Task, r *flow.TaskRun) bool {
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
		i := slices.IndexFunc(runs, func(r *flow.TaskRun) bool { return same(t, r) })
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

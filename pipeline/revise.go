package pipeline

import (
	"slices"

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
	return d.revised < d.revisions && slices.ContainsFunc(d.current, func(r *taskRun) bool { return r.finished && revisable(r, d.answered) })
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
func (tr *turnRun) revise(d *dispatcher, p flow.Plan, runs []*taskRun) ([]*taskRun, []flow.Revision, error) {
	var revs []flow.Revision
	for tr.ctx.Err() == nil {
		failed := d.nextFailures()
		if len(failed) == 0 {
			break
		}
		tr.emit(flow.StageEvent{Stage: flow.StageRevision})
		rev, ok, err := tr.askRevision(runs, failed, p.Constraints)
		if err != nil {
			return runs, revs, err
		}
		if !ok {
			break // the controller could not be asked; the error event said why
		}
		revs = append(revs, rev)
		tr.emit(flow.PlanRevisionEvent{Revision: rev})
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

// askRevision makes the revision call (planning.Planner.Revise) and with
// plan review shows its tasks to the user (turned down, it adds nothing;
// edited, it is validated again), under the plan's constraints cons. ok
// is false when the controller could not be asked (an error event says
// why; the turn goes on to its answer); err is the turn's cancellation.
func (tr *turnRun) askRevision(runs, failed []*taskRun, cons flow.Constraints) (rev flow.Revision, ok bool, err error) {
	rev, ok, err = tr.planner.Revise(tr.ctx, records(runs), records(failed))
	if !ok || err != nil || tr.t.Review == nil || len(rev.Tasks) == 0 {
		return rev, ok, err
	}
	// With plan review nothing runs unseen: the revision is a plan.
	edited, err := tr.t.Review(tr.ctx, flow.Plan{Tasks: rev.Tasks, Constraints: cons, Notes: rev.Notes})
	switch {
	case tr.ctx.Err() != nil:
		return rev, false, flow.Cancelled(tr.ctx)
	case err != nil:
		rev.Tasks = []flow.Task{}
		rev.Notes = append(rev.Notes, "the revision was turned down in review: "+text.OneLine(err.Error(), 200))
	default:
		p := tr.planner.ValidateRevision(edited.Tasks, records(runs))
		rev.Tasks, rev.Notes = p.Tasks, append(rev.Notes, p.Notes...)
	}
	return rev, true, nil
}

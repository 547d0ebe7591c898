package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/chorusai/chorus/pipeline/flow"
)

// dispatcher selects models for a turn's tasks and runs them as a DAG: a
// task starts the moment its model is chosen and its last dependency has
// finished, independent tasks run concurrently up to MaxParallel, and a
// failure skips its dependents while siblings go on.
//
// Tasks reach it in two ways. While the plan still streams, each task
// that is complete and valid on its own — and whose dependencies came
// before it — is offered (the idea of LLMCompiler, Kim et al. 2023: a task
// is dispatched as soon as it is parsed and its dependencies are done):
// its model is selected and it starts once its dependencies finish, while
// the controller is still writing the rest of the plan. When the plan is
// final, settle compares: an early task the final plan keeps unchanged
// keeps its run; one it drops or changes (a re-asked plan, other
// constraints) is withdrawn — cancelled, its result not used, and said so
// in an event, a plan note and the log. Then start selects the remaining
// tasks (one controller call for those with a real choice) and the DAG
// runs to its end.
//
// The controller is one slot on a local server: a task the controller
// does itself, or a choice it must make, waits for the final plan, so
// streaming dispatch adds no controller call and never delays the plan.
//
// The dispatcher schedules and does nothing else. It holds none of the
// turn — no request, transcript, scope or output folder: what a task
// needs done, its model chosen or its run, it asks of the turn (taskWork),
// which hands it to the stages.
type dispatcher struct {
	// ctx is the turn's context, which each run's own derives from; emit
	// is where the scheduling's events go (a task offered, withdrawn or
	// skipped, a model chosen); work does what the tasks need done.
	ctx  context.Context
	emit flow.Emit
	work taskWork
	// revisions bounds the turn's revisions (Options.Revise).
	revisions int
	sem       chan struct{}

	// selecting counts the early tasks' selection goroutines, running the
	// tasks' goroutines.
	selecting sync.WaitGroup
	running   sync.WaitGroup
	// ran closes when the runs start launched have all finished: what
	// finish waits on after an early answer (waiting on running itself
	// there would race the waiting goroutine when a revision adds runs).
	ran chan struct{}
	// planned closes when the final plan is known (settle); asked when the
	// selection call is over, or there is none (start).
	planned chan struct{}
	asked   chan struct{}

	mu    sync.Mutex
	phase dispatchPhase
	// raw are the task objects read from the streaming plan so far, cons
	// its constraints merged with the turn's (consKnown once read).
	raw       []flow.Task
	cons      flow.Constraints
	consKnown bool
	// said is set once the constraints' "nothing qualifies" error was sent.
	said bool
	// current are the runs of the tasks offered so far, or, once settled,
	// of the final plan, in plan order; early every run offered.
	current []*taskRun
	early   []*taskRun

	// answerNow closes when the answer may start before every task has
	// finished (early.go); nil when response.early is off. answering is
	// set then, and waited once the tasks it named have finished (finish):
	// a revision may follow.
	answerNow chan struct{}
	answering bool
	waited    bool

	// revised counts the turn's revisions, answered the tasks whose
	// failure one answered (revise.go).
	revised  int
	answered map[int]bool

	// earlyPicks: the controller server has a second slot, so a pick an
	// early task waits for is asked while the plan streams (earlypick.go);
	// picked is set once the turn made that call, picks counts it.
	earlyPicks bool
	picked     bool
	picks      sync.WaitGroup
	// pickCtx is the early picks' context; stopPicks ends them when the
	// plan fails.
	pickCtx   context.Context
	stopPicks context.CancelFunc
}

type dispatchPhase int

const (
	// offering: the plan streams; offered tasks start when ready.
	offering dispatchPhase = iota
	// settled: the final plan is known, its selection not yet made.
	settled
	// started: every task of the final plan may start.
	started
)

// taskWork is what the dispatcher asks of the turn (turnRun): the work
// its tasks need done, which the stages do.
type taskWork interface {
	// constraints takes the constraints the streaming plan states, as the
	// final plan's validation will take them, merged with the turn's; why
	// says no model can meet them ("" when some can).
	constraints(c flow.Constraints) (merged flow.Constraints, why string)
	// offerable returns the last of the task objects read so far from
	// the streaming plan as it would start early, or false when it
	// cannot (planning.Planner.Early).
	offerable(read []flow.Task) (flow.Task, bool)
	// fixPath is the path fixed in advance for task's file, "" for none
	// (the early answer).
	fixPath(task flow.Task) string
	// choose selects task's model under cons; pending says the
	// controller must choose among its candidates (ask).
	choose(ctx context.Context, task flow.Task, cons flow.Constraints) (c *flow.Choice, pending bool)
	// ask has the controller choose for ask in one call — on a branch of
	// the conversation when branch (an early pick on a second slot) —
	// and hands each choice to publish once made.
	ask(ctx context.Context, ask []*flow.Choice, branch bool, publish func(*flow.Choice))
	// runTask runs a task whose model is chosen and whose dependencies
	// (deps) have ended, under the run's own context, into its record.
	runTask(ctx context.Context, r *flow.TaskRun, deps map[int]*flow.TaskRun)
}

// schedule is what a dispatcher is given besides its work: parallel
// bounds the tasks running at once, revisions the turn's revisions;
// earlyAnswer lets the answer start before the last tasks end, earlyPicks
// asks a pick while the plan streams (the controller has a second slot).
type schedule struct {
	parallel, revisions     int
	earlyAnswer, earlyPicks bool
}

// newDispatcher returns a dispatcher for a turn under ctx, whose events go
// to emit and whose tasks' work work does.
func newDispatcher(ctx context.Context, emit flow.Emit, work taskWork, s schedule) *dispatcher {
	d := &dispatcher{ctx: ctx, emit: emit, work: work, revisions: s.revisions, earlyPicks: s.earlyPicks,
		sem: make(chan struct{}, s.parallel), planned: make(chan struct{}), asked: make(chan struct{})}
	d.pickCtx, d.stopPicks = context.WithCancel(ctx)
	if s.earlyAnswer {
		d.answerNow = make(chan struct{})
	}
	return d
}

func (d *dispatcher) newRun(task flow.Task, early bool) *taskRun {
	r := &taskRun{TaskRun: flow.TaskRun{Task: task, Fixed: d.work.fixPath(task)}, early: early, ready: make(chan struct{}), done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancelCause(d.ctx)
	return r
}

// constraintsRead takes the constraints of the streaming plan.
func (d *dispatcher) constraintsRead(c flow.Constraints) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.phase != offering {
		return
	}
	// What the final plan's validation will ignore is not applied early
	// either (it says so, once).
	cons, why := d.work.constraints(c)
	d.cons, d.consKnown = cons, true
	if why != "" {
		// Said once, before any task's own "no model satisfies".
		d.said = true
		d.emit(flow.ErrorEvent{Stage: flow.StageSelection, Message: why})
	}
}

// taskRead takes the next task object of the streaming plan. The tasks
// read so far are validated as a plan of their own; a task is offered when
// it survives that unchanged in id, names only earlier offered tasks as
// its inputs, and fits the plan's cap — then the whole plan's validation
// can only keep it as it is, short of a plan that is re-asked.
func (d *dispatcher) taskRead(raw flow.Task) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.phase != offering || !d.consKnown {
		return
	}
	d.raw = append(d.raw, raw)
	inputs := slices.Clone(raw.Dep)
	for _, v := range raw.Args {
		inputs = append(inputs, flow.Refs(v)...)
	}
	for _, id := range inputs {
		if !slices.ContainsFunc(d.early, func(r *taskRun) bool { return r.Task.ID == id }) {
			return // a later task's output, or one that cannot start early
		}
	}
	if task, ok := d.work.offerable(d.raw); ok {
		d.offer(task)
	}
}

// offer starts selecting task's model now and runs it once its
// dependencies have finished. Called with d.mu held.
func (d *dispatcher) offer(task flow.Task) {
	r := d.newRun(task, true)
	d.current = append(d.current, r)
	d.early = append(d.early, r)
	d.emit(flow.PlanTaskEvent{Task: task})
	cons := d.cons
	d.selecting.Add(1)
	go func() {
		defer d.selecting.Done()
		c, pending := d.work.choose(r.ctx, task, cons)
		d.mu.Lock()
		defer d.mu.Unlock()
		if pending {
			// The controller chooses: in the one selection call after
			// the plan, or now on a second slot.
			r.pending = c
			d.pickSoon()
			return
		}
		d.emit(c.Event())
		d.publish(r, c)
	}()
	d.advance()
}

// publish makes c r's choice. Called with d.mu held.
func (d *dispatcher) publish(r *taskRun, c *flow.Choice) {
	if r.Choice != nil {
		return
	}
	r.Choice, r.pending = c, nil
	close(r.ready)
}

// settle takes the final plan: early runs it keeps unchanged go on, the
// others are withdrawn and waited for. It returns a note for each
// withdrawn run, for the plan's notes.
func (d *dispatcher) settle(p flow.Plan) []string {
	d.selecting.Wait()
	d.mu.Lock()
	sameCons := !d.consKnown || sameConstraints(d.cons, p.Constraints)
	kept := map[int]*taskRun{}
	var gone []*taskRun
	for _, r := range d.early {
		final, ok := p.Task(r.Task.ID)
		why := ""
		switch {
		case !ok:
			why = "the final plan dropped it"
		case !sameTask(final, r.Task):
			why = "the final plan changed it"
		case !sameCons:
			why = "the final plan's constraints differ"
		}
		for _, dep := range r.Task.Dep {
			if why == "" && kept[dep] == nil {
				why = fmt.Sprintf("it used task %d's output, which was withdrawn", dep)
			}
		}
		if why != "" {
			gone = append(gone, r)
			r.withdrawn = why
			r.cancel(flow.Withdrawal{Why: why})
			continue
		}
		kept[r.Task.ID] = r
	}
	d.current = d.current[:0]
	for _, task := range p.Tasks {
		r := kept[task.ID]
		if r == nil {
			r = d.newRun(task, false)
		}
		d.current = append(d.current, r)
	}
	d.phase = settled
	close(d.planned)
	launched := map[*taskRun]bool{}
	for _, r := range gone {
		launched[r] = r.launched
	}
	d.mu.Unlock()

	var notes []string
	for _, r := range gone {
		if launched[r] {
			<-r.done
		}
		if d.ctx.Err() != nil {
			// The user stopped the turn: that is what its runs say.
			if !launched[r] {
				r.Fail("cancelled before it started")
				r.Skipped, r.Cancelled = true, true
				d.emit(r.EndEvent())
			}
			continue
		}
		d.emit(flow.TaskWithdrawnEvent{ID: r.Task.ID, Task: r.Task.Task, Reason: r.withdrawn})
		notes = append(notes, fmt.Sprintf("task %d (%s) started before the plan was complete; %s, so that run was cancelled and its result is not used",
			r.Task.ID, r.Task.Task, r.withdrawn))
	}
	return notes
}

// abandon withdraws every early run: the plan failed or the turn ended
// before it was final.
func (d *dispatcher) abandon() {
	d.settle(flow.Plan{})
	d.stopPicks()
	d.picks.Wait()
}

// choose selects a model for every task of the final plan that has none
// yet: the deterministic part at once, concurrently, with the model
// events in plan order; the real choices together in one controller call
// in the background (asked closes when it is over). At most one
// selection call per turn, whatever the plan's size.
func (d *dispatcher) choose(p flow.Plan) {
	d.mu.Lock()
	var fresh []*taskRun
	for _, r := range d.current {
		// Not an early run (chosen as it arrived), nor one of the plan's
		// that ran before a revision added these.
		if !r.early && !r.finished {
			fresh = append(fresh, r)
		}
	}
	d.mu.Unlock()
	type picked struct {
		c       *flow.Choice
		pending bool
	}
	got := make([]picked, len(fresh))
	var wg sync.WaitGroup
	for i, r := range fresh {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i].c, got[i].pending = d.work.choose(d.ctx, r.Task, p.Constraints)
		}()
	}
	wg.Wait()

	d.mu.Lock()
	for i, r := range fresh {
		if got[i].pending {
			r.pending = got[i].c
			continue
		}
		d.emit(got[i].c.Event())
		d.publish(r, got[i].c)
	}
	var ask []*flow.Choice
	byChoice := map[*flow.Choice]*taskRun{}
	for _, r := range d.current {
		if r.pending != nil {
			ask = append(ask, r.pending)
			byChoice[r.pending] = r
		}
	}
	d.mu.Unlock()
	over := func() {
		// The picks asked while the plan streamed are part of the
		// selection: the answer must not queue behind them either.
		d.picks.Wait()
		d.mu.Lock()
		defer d.mu.Unlock()
		close(d.asked)
		d.checkEarly()
	}
	if len(ask) == 0 {
		go over()
		return
	}
	go func() {
		defer over()
		d.work.ask(d.ctx, ask, false, func(c *flow.Choice) {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.emit(c.Event())
			d.publish(byChoice[c], c)
		})
	}()
}

// start lets every task of the final plan run and returns their runs, in
// plan order, once all have finished and the selection call is over — or,
// with response.early, as soon as every task left is producing a file at
// a fixed path: then the tasks still running are stand-ins (answerRuns),
// and finish waits for them.
func (d *dispatcher) start() []*taskRun {
	d.mu.Lock()
	// Whether the answer began before this start, read before advance:
	// advance may let it begin now (checkEarly), and then this start is
	// the one that answers early.
	began := d.answering
	d.phase = started
	d.advance()
	answerNow := d.answerNow
	if began {
		// The answer began already: the tasks a revision added after it
		// run to their end before the answer goes on.
		answerNow = nil
	}
	d.mu.Unlock()
	all := make(chan struct{})
	d.ran = all
	go func() {
		d.running.Wait()
		close(all)
	}()
	select {
	case <-all:
	case <-answerNow:
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.answerRuns()
	}
	// A task skipped for a failed dependency never waited for its
	// choice: the record still says what was chosen, once the selection
	// call is over (the response must not queue behind it either).
	return d.wait()
}

// release frees the runs' contexts once nothing uses them. Called with
// d.mu held, after every run has ended.
func (d *dispatcher) release() {
	for _, r := range d.current {
		r.cancel(nil)
	}
	d.stopPicks()
}

// wait waits for the selection call to be over, then releases the runs
// and returns them: the end of start, and PlanOnly's selection, which
// runs nothing.
func (d *dispatcher) wait() []*taskRun {
	select {
	case <-d.asked:
	case <-d.ctx.Done():
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.release()
	return slices.Clone(d.current)
}

// advance launches every task that can start now and skips those whose
// dependency failed. Called with d.mu held: after an offer, when a run
// finishes, and when the final plan starts. The runs are in plan order,
// dependencies first, so one pass sees every consequence.
func (d *dispatcher) advance() {
	if d.phase == settled {
		return
	}
	for _, r := range d.current {
		if r.launched || r.finished || r.withdrawn != "" {
			continue
		}
		ready := true
		for _, id := range r.Task.Dep {
			dep := d.run(id)
			switch {
			case dep == nil || !dep.finished:
				ready = false
			case dep.Status != flow.StatusOK && d.phase == started:
				why := fmt.Sprintf("not run: task %d (%s) failed", dep.Task.ID, dep.Task.Task)
				if dep.Skipped {
					why = fmt.Sprintf("not run: it needs task %d, which did not finish", dep.Task.ID)
				}
				d.skip(r, why)
				ready = false
			case dep.Status != flow.StatusOK:
				ready = false // the final plan decides
			}
			if !ready {
				break
			}
		}
		if ready && !r.finished {
			d.launch(r)
		}
	}
	d.checkEarly()
}

// run returns the current run of task id.
func (d *dispatcher) run(id int) *taskRun {
	for _, r := range d.current {
		if r.Task.ID == id {
			return r
		}
	}
	return nil
}

// skip marks r as not run. Called with d.mu held.
func (d *dispatcher) skip(r *taskRun, why string) {
	r.Fail(why)
	r.Skipped = true
	if d.ctx.Err() != nil {
		// Its dependency did not fail: the user stopped the turn.
		r.Err, r.Cancelled = "cancelled before it started", true
	}
	r.finished = true
	close(r.done)
	d.emit(r.EndEvent())
}

// launch starts r's goroutine. Called with d.mu held; its dependencies
// have finished, and their records are read only after that.
func (d *dispatcher) launch(r *taskRun) {
	r.launched = true
	deps := map[int]*flow.TaskRun{}
	for _, id := range r.Task.Dep {
		deps[id] = &d.run(id).TaskRun
	}
	d.running.Add(1)
	go func() {
		defer d.running.Done()
		d.runOne(r, deps)
		d.mu.Lock()
		defer d.mu.Unlock()
		r.finished = true
		close(r.done)
		d.advance()
	}()
}

// runOne waits for r's choice (the controller may still be choosing),
// then for the final plan if the controller itself runs the task (its one
// slot is writing the plan), then for a free slot, and runs it.
func (d *dispatcher) runOne(r *taskRun, deps map[int]*flow.TaskRun) {
	select {
	case <-r.ready:
	case <-r.ctx.Done():
		d.stopped(r)
		return
	}
	if r.Choice.Controller {
		select {
		case <-d.planned:
		default:
			d.emit(flow.DebugEvent{Stage: flow.StageExecution, Kind: "wait", Content: fmt.Sprintf(
				"task %d (%s) waits for the final plan: the controller runs it, and its one slot is still writing the plan", r.Task.ID, r.Task.Task)})
		}
		select {
		case <-d.planned:
		case <-r.ctx.Done():
			d.stopped(r)
			return
		}
	}
	select {
	case d.sem <- struct{}{}:
		defer func() { <-d.sem }()
	case <-r.ctx.Done():
		d.stopped(r)
		return
	}
	if r.ctx.Err() != nil {
		d.stopped(r)
		return
	}
	d.work.runTask(r.ctx, &r.TaskRun, deps)
}

// stopped ends a run cancelled before it started: the user's cancel (its
// end event says so), or a withdrawal (the withdrawn event says so; a
// task that never ran gets no end event of its own).
func (d *dispatcher) stopped(r *taskRun) {
	if errors.As(context.Cause(r.ctx), new(flow.Withdrawal)) {
		return
	}
	r.Fail("cancelled before it started")
	r.Skipped, r.Cancelled = true, true
	d.emit(r.EndEvent())
}

// sameTask reports whether two validated tasks are the same work.
func sameTask(a, b flow.Task) bool {
	return a.ID == b.ID && a.Task == b.Task && slices.Equal(a.Dep, b.Dep) && maps.Equal(a.Args, b.Args)
}

func sameConstraints(a, b flow.Constraints) bool {
	return a.String() == b.String() && slices.Equal(a.Tasks, b.Tasks) && a.Benchmark == b.Benchmark
}

// saidUnqualifiable reports whether the streaming plan's constraints were
// said to be unqualifiable already: the final plan's need not say it again.
func (d *dispatcher) saidUnqualifiable() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.said
}

package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/planning"
	"github.com/chorusai/chorus/pipeline/response"
	"github.com/chorusai/chorus/pipeline/selection"
	"github.com/chorusai/chorus/scope"
)

// turnRun is one turn while it runs, and all of its state: the engine, the
// turn's context and the Turn as given, when it started, its controller
// transcript, where its events go, its output folder and its scope — built
// once, here — and its stages, each given what it needs of the turn (the
// request, the files, the scope, the transcript) when the turn starts.
// Run is newTurnRun(…).run(); PlanOnly plans on one. The dispatcher
// (dispatch.go) schedules the turn's tasks and holds none of this: what a
// task needs done it asks of the turn (taskWork), which hands it to a stage.
type turnRun struct {
	e *Engine
	// ctx is the turn's context, carrying its approver (Turn.Approve)
	// and the Hub lookups of the models its request names.
	ctx   context.Context
	t     Turn
	start time.Time
	// script is the turn's controller transcript: the head, the chat log,
	// each stage's exchange.
	script *flow.Transcript
	emit   flow.Emit
	// outDir is where the turn's files go; sc what it may touch.
	outDir string
	sc     *scope.Scope
	// The stages: planner plans the turn (and revises its plan), sel
	// chooses the models of its tasks, exec runs them, resp answers.
	planner *planning.Planner
	sel     *selection.Selector
	exec    *execution.Executor
	resp    *response.Responder
}

// Run executes one turn and returns its record. Events describe progress as
// it happens. The returned error is non-nil when the turn ended without an
// answer (controller unreachable, cancelled); the report is still returned
// with whatever was done.
func (e *Engine) Run(ctx context.Context, t Turn, emit flow.Emit) (*flow.Report, error) {
	return e.newTurnRun(ctx, t, emit).run()
}

// newTurnRun starts running t: its scope is built, its transcript begins
// with the head and the chat log, a model its request names outside the
// catalog is looked up on the Hub while the plan is written, and each
// stage is given what it needs of t. The stages' events go through the
// turn (send), to whatever its emit is when they happen.
func (e *Engine) newTurnRun(ctx context.Context, t Turn, emit flow.Emit) *turnRun {
	tr := &turnRun{e: e, t: t, emit: emit, start: time.Now(), sel: e.selector()}
	tr.ctx = tr.sel.LookUpNamed(execution.WithApprover(ctx, t.Approve), t.Request)
	tr.script = e.newTranscript(tr.ctx, t.History)
	tr.outDir = e.outDir(t.OutputDir)
	tr.sc = tr.grants()
	tr.planner = &planning.Planner{Catalog: e.cat, Controller: e.ctl, Script: tr.script, Emit: tr.send, Scope: tr.sc,
		Reader: execution.SkillReader(e.router, t.Workspace), MaxTasks: e.opts.MaxTasks, ResultBudget: e.opts.ResultBudget,
		Request: t.Request, Input: t.Input, Attachments: t.Attachments, History: t.History, Constraints: t.Constraints}
	tr.exec = &execution.Executor{Controller: e.ctl, Catalog: e.cat, Script: tr.script, Emit: tr.send, Scope: tr.sc, OutDir: tr.outDir,
		Workspace: t.Workspace, Chat: t.Chat, TaskTimeout: e.opts.TaskTimeout, ResultCap: e.opts.ResultCap, SpillQuota: e.opts.SpillQuota,
		SpillDirQuota: t.SpillDirQuota, EarlyAnswer: e.opts.EarlyAnswer, Exts: e.exts}
	tr.resp = &response.Responder{Controller: e.ctl, Script: tr.script, Emit: tr.send, Scope: tr.sc, ResultBudget: e.opts.ResultBudget,
		Request: t.Request, Input: t.Input, Attachments: t.Attachments, System: t.System}
	return tr
}

// send publishes ev to the turn's emit.
func (tr *turnRun) send(ev flow.Event) { tr.emit(ev) }

// run runs the turn through its stages: planning, then — when the plan
// has tasks — selection, execution and revision, then the response.
func (tr *turnRun) run() (rep *flow.Report, err error) {
	e, t, ctx := tr.e, tr.t, tr.ctx
	tr.logStart()
	defer func() { e.logEnd(ctx, rep, err, time.Since(tr.start)) }()
	tr.emit = syncEmit(logEvents(ctx, e.opts.Logger, tr.emit))
	var stopWatch func()
	tr.ctx, stopWatch = watchQueue(tr.ctx, t.Chat, tr.emit)
	defer stopWatch()
	rep = &flow.Report{Request: t.Request, Attachments: t.Attachments, Controller: e.ctl.Model(), Tasks: []flow.TaskReport{}}
	rep.Named = tr.attachNamed()

	tr.emit(flow.StageEvent{Stage: flow.StagePlanning})
	d := tr.dispatcher()
	plan, err := tr.plan(d, rep)
	if err != nil {
		return tr.fail(rep, flow.StagePlanning, err)
	}
	if t.PlanOnly {
		tr.close(rep)
		return rep, nil
	}
	results, stage, err := tr.execute(d, plan, rep)
	if stage != "" {
		return tr.fail(rep, stage, err)
	}
	tr.emit(flow.StageEvent{Stage: flow.StageResponse, Early: stillRunning(results)})
	answer, err := tr.respond(d, plan, results, rep)
	if err != nil {
		return tr.fail(rep, flow.StageResponse, err)
	}
	rep.Answer = answer
	tr.close(rep)
	tr.emit(flow.ReportEvent{Report: *rep})
	return rep, nil
}

// attachNamed treats the media files the request names (namedMedia) as
// attachments — the planner and the answer see them so — and returns them,
// for the report.
func (tr *turnRun) attachNamed() []string {
	named := tr.namedMedia()
	if len(named) == 0 {
		return nil
	}
	tr.t.Attachments = append(slices.Clone(tr.t.Attachments), named...)
	tr.planner.Attachments, tr.resp.Attachments = tr.t.Attachments, tr.t.Attachments
	return named
}

// dispatcher starts the scheduling of the turn's tasks. With the early
// answer on, the controller is asked now whether it looks at images: one
// it would answer about gets no path fixed in advance (FixPath).
func (tr *turnRun) dispatcher() *dispatcher {
	e := tr.e
	if e.opts.EarlyAnswer {
		tr.exec.CanSee = e.ctl.CanSee(tr.ctx)
	}
	return newDispatcher(tr.ctx, tr.emit, tr, schedule{parallel: e.opts.MaxParallel, revisions: e.opts.Revise,
		earlyAnswer: e.opts.EarlyAnswer, earlyPicks: e.ctl.Options().MaxConcurrent >= 2})
}

// plan runs the planning stage: the plan, streamed to d so its tasks can
// start while it is written (not with plan review: the user sees the
// whole plan before anything runs), reviewed, settled with d, and
// published.
func (tr *turnRun) plan(d *dispatcher, rep *flow.Report) (flow.Plan, error) {
	t := tr.t
	var stream *planning.Stream
	if t.Review == nil && !t.PlanOnly {
		stream = &planning.Stream{OnConstraints: d.constraintsRead, OnTask: d.taskRead, WaitForConstraints: selection.RequestMayConstrain(t.Request)}
	}
	plan, err := tr.planner.Plan(tr.ctx, nil, stream)
	if err != nil {
		d.abandon()
		return plan, err
	}
	if t.Review != nil && len(plan.Tasks) > 0 {
		edited, err := t.Review(tr.ctx, plan)
		if err != nil {
			return plan, fmt.Errorf("plan not run: %w", err)
		}
		plan = tr.planner.Validate(edited.Tasks, edited.Constraints, plan.Notes)
	}
	plan.Notes = append(plan.Notes, d.settle(plan)...)
	plan.Notes = append(plan.Notes, tr.sel.HubNotes(tr.ctx, plan)...)
	rep.Constraints, rep.Notes = plan.Constraints, plan.Notes
	tr.emit(flow.PlanEvent{Tasks: plan.Tasks, Constraints: plan.Constraints, Notes: plan.Notes}) //nolint:staticcheck // S1016: the event names what it carries; Plan may grow fields it does not
	return plan, nil
}

// execute runs the plan's tasks — selection, execution, then revision
// while tasks failed for good — and returns every run of the turn. A
// stage is returned when the turn ends there (cancelled), with its error.
func (tr *turnRun) execute(d *dispatcher, plan flow.Plan, rep *flow.Report) (results []*taskRun, stage flow.Stage, err error) {
	ctx := tr.ctx
	if len(plan.Tasks) == 0 {
		return nil, "", nil
	}
	tr.emit(flow.StageEvent{Stage: flow.StageSelection})
	if why := tr.sel.Unqualifiable(plan.Constraints); why != "" && !d.saidUnqualifiable() {
		// Said once here rather than found out task by task.
		tr.emit(flow.ErrorEvent{Stage: flow.StageSelection, Message: why})
	}
	d.choose(plan)
	if ctx.Err() != nil {
		d.start()
		tr.finish(d, rep)
		return nil, flow.StageSelection, ctx.Err()
	}
	tr.emit(flow.StageEvent{Stage: flow.StageExecution})
	results = d.start()
	tr.report(rep, results)
	if ctx.Err() != nil {
		tr.finish(d, rep)
		return results, flow.StageExecution, ctx.Err()
	}
	results, rep.Revisions, err = tr.revise(d, plan, results)
	tr.report(rep, results)
	if err != nil || ctx.Err() != nil {
		tr.finish(d, rep)
		return results, flow.StageRevision, ctx.Err()
	}
	return results, "", nil
}

// report puts runs in rep, as the execution record has them.
func (tr *turnRun) report(rep *flow.Report, runs []*taskRun) {
	rep.Tasks, rep.Files = execution.Reports(records(runs), tr.e.opts.ResultCap), execution.Files(records(runs))
}

// close ends rep: how long the turn took and its controller calls.
func (tr *turnRun) close(rep *flow.Report) {
	rep.ElapsedMS = time.Since(tr.start).Milliseconds()
	rep.Calls = tr.script.Calls()
}

// fail ends the turn at stage with err — the turn's cancellation when its
// context was cancelled — and says so in a fatal error event.
func (tr *turnRun) fail(rep *flow.Report, stage flow.Stage, err error) (*flow.Report, error) {
	tr.close(rep)
	if tr.ctx.Err() != nil {
		err = flow.Cancelled(tr.ctx)
		tr.emit(flow.ErrorEvent{Stage: stage, Message: "cancelled — nothing more will run this turn", Fatal: true})
	} else {
		tr.emit(flow.ErrorEvent{Stage: stage, Message: err.Error(), Fatal: true})
	}
	return rep, err
}

// The work the dispatcher asks of the turn (taskWork), done by the stages.

func (tr *turnRun) constraints(c flow.Constraints) (flow.Constraints, string) {
	c, _ = tr.planner.CheckConstraints(c)
	merged := tr.t.Constraints.Merge(c)
	return merged, tr.sel.Unqualifiable(merged)
}

func (tr *turnRun) offerable(read []flow.Task) (flow.Task, bool) { return tr.planner.Early(read) }

func (tr *turnRun) fixPath(task flow.Task) string { return tr.exec.FixPath(task) }

func (tr *turnRun) choose(ctx context.Context, task flow.Task, cons flow.Constraints) (*flow.Choice, bool) {
	return tr.sel.Select(ctx, task, cons, tr.t.Request)
}

func (tr *turnRun) ask(ctx context.Context, ask []*flow.Choice, branch bool, publish func(*flow.Choice)) {
	script := tr.script
	if branch {
		script = script.Fork()
	}
	tr.sel.Ask(ctx, ask, script, tr.t.Request, tr.emit, publish)
}

func (tr *turnRun) runTask(ctx context.Context, r *flow.TaskRun, deps map[int]*flow.TaskRun) {
	tr.exec.Run(ctx, r, deps)
}

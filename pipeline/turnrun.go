package pipeline

import (
	"context"

	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/planning"
	"github.com/chorusai/chorus/pipeline/response"
	"github.com/chorusai/chorus/pipeline/selection"
	"github.com/chorusai/chorus/scope"
)

// turnRun is one turn while it runs: what every stage and every task of
// it reads — the engine, the turn's context and request, its controller
// transcript, where its events go, its outputs folder and its scope. The
// stages are its methods, so this state travels as one value instead of
// six parameters through each of them; the dispatcher (dispatch.go)
// embeds it and adds the scheduling.
type turnRun struct {
	e *Engine
	// ctx is the turn's context, carrying its approver (Turn.Approve).
	ctx context.Context
	t   Turn
	// script is the turn's controller transcript (prompt.go).
	script *flow.Transcript
	emit   flow.Emit
	// outDir is where the turn's files go; sc what it may touch.
	outDir string
	sc     *scope.Scope
	// resp writes the turn's answer.
	resp *response.Responder
	// The stages, given what each needs of the turn: planner plans it, sel
	// chooses the models of its tasks, exec runs them, resp answers.
	planner *planning.Planner
	sel     *selection.Selector
	exec    *execution.Executor
}

// newTurnRun starts running t: its transcript begins with the head and
// the chat log, and a model its request names outside the catalog is
// looked up on the Hub while the plan is written (namedhub.go).
func (e *Engine) newTurnRun(ctx context.Context, t Turn, emit flow.Emit) *turnRun {
	sel := e.selector()
	ctx = sel.LookUpNamed(execution.WithApprover(ctx, t.Approve), t.Request)
	tr := &turnRun{e: e, sel: sel, ctx: ctx, t: t, script: e.newTranscript(ctx, t), emit: emit, outDir: e.outDir(t), sc: e.access(t)}
	tr.planner = &planning.Planner{Catalog: e.cat, Controller: e.ctl, Script: tr.script, Emit: emit, Scope: tr.sc,
		Reader: execution.SkillReader(e.router, t.Workspace), MaxTasks: e.opts.MaxTasks, ResultBudget: e.opts.ResultBudget,
		Request: t.Request, Input: t.Input, Attachments: t.Attachments, History: t.History, Constraints: t.Constraints}
	tr.exec = &execution.Executor{Controller: e.ctl, Catalog: e.cat, Script: tr.script, Emit: emit, Scope: tr.sc, OutDir: tr.outDir,
		Workspace: t.Workspace, Chat: t.Chat, TaskTimeout: e.opts.TaskTimeout, ResultCap: e.opts.ResultCap, SpillQuota: e.opts.SpillQuota,
		SpillDirQuota: t.SpillDirQuota, EarlyAnswer: e.opts.EarlyAnswer, Exts: e.exts}
	tr.resp = &response.Responder{Controller: e.ctl, Script: tr.script, Emit: emit, Scope: tr.sc, ResultBudget: e.opts.ResultBudget,
		Request: t.Request, Input: t.Input, Attachments: t.Attachments, System: t.System}
	return tr
}

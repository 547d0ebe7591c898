package pipeline

import (
	"context"
	"sync/atomic"

	"github.com/chorusai/chorus/endpoints"
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
	script *transcript
	emit   Emit
	// outDir is where the turn's files go; sc what it may touch.
	outDir string
	sc     *scope.Scope
	// spilled is the bytes of results the turn wrote to files (spill.go).
	spilled atomic.Int64
}

// newTurnRun starts running t: its transcript begins with the head and
// the chat log, and a model its request names outside the catalog is
// looked up on the Hub while the plan is written (namedhub.go).
func (e *Engine) newTurnRun(ctx context.Context, t Turn, emit Emit) *turnRun {
	ctx = e.lookUpNamed(withApprover(ctx, t.Approve), t.Request)
	return &turnRun{e: e, ctx: ctx, t: t, script: e.newTranscript(ctx, t), emit: emit, outDir: e.outDir(t), sc: e.access(t)}
}

// progress returns the progress callback of task id: each report becomes
// the task's progress event.
func (tr *turnRun) progress(id int) func(endpoints.Progress) {
	return func(p endpoints.Progress) {
		tr.emit(TaskProgressEvent{ID: id, Message: p.Message, WaitMS: p.Wait.Milliseconds(), Passing: p.Passing})
	}
}

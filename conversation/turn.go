package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/chorusai/chorus/pipeline"
)

// Request is one turn a front end asks for.
type Request struct {
	// Request is what the user wrote; Input is data they passed with it
	// (piped stdin), which grants nothing (pipeline.Turn.Input).
	Request string
	Input   string
	// Attachments are the files the user attached, full paths.
	Attachments []string
	// PlanOnly stops after planning; the turn is neither kept in the
	// session nor saved.
	PlanOnly bool
	// Review, when set, is shown the validated plan before anything runs
	// (pipeline.Turn.Review); an error turns the plan down and the turn
	// counts as cancelled.
	Review func(ctx context.Context, p pipeline.Plan) (pipeline.Plan, error)
	// Approve, when set, is asked before a call that may change things
	// runs — an MCP tool not annotated read-only (pipeline.Turn.Approve);
	// without it such calls are refused.
	Approve func(ctx context.Context, a pipeline.Approval) error
	// Check asks the controller server first whether it is up and has the
	// model: a front end without a check of its own (chorus run) learns
	// why nothing can run before the turn starts, and the turn is not
	// recorded.
	Check bool
	// Synced, when set, is told — on Run's goroutine, before the turn
	// starts — of the turns other writers added to the session since the
	// chat last looked, which the turn's history includes.
	Synced func(Sync)
}

// Result is how a turn ended.
type Result struct {
	// Ran is false when the controller check failed (Request.Check):
	// nothing ran and nothing was recorded.
	Ran bool
	// Record is the turn as the session keeps it.
	Record Record
	// Report and Err are what Engine.Run returned (Err is the check's
	// error when the turn did not run).
	Report *pipeline.Report
	Err    error
	// Session is the session the turn went into.
	Session *Session
	// Saved says the session was written; SaveErr why not.
	Saved   bool
	SaveErr error
	// Sync holds the turns other writers added that the save found.
	Sync Sync
	// TapeErr is why the recording could not be saved after the turn.
	TapeErr error
}

// Run runs one turn on the chat's current session, on the calling
// goroutine, and returns when it has ended and been saved: the
// controller check (when asked), the history and standing constraints,
// the engine with emit receiving every event in order, the record, the
// save (merged with other writers), and the recording's save. A panic in
// a stage costs the turn, not the front end. While the service drains
// (Drain.Begin) no turn starts: the result's Err is ErrDraining, said
// as the turn's fatal error event too.
func (c *Chat) Run(ctx context.Context, req Request, emit pipeline.Emit) (res Result) {
	drain := c.svc.opts.Drain
	if !drain.enter() {
		emit(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: ErrDraining.Error(), Fatal: true})
		return Result{Session: c.Session(), Err: ErrDraining}
	}
	defer drain.leave()
	if o := c.svc.opts.Observer; o != nil {
		watch := o.TurnStarted()
		front := emit
		emit = func(ev pipeline.Event) {
			watch.Event(ev)
			front(ev)
		}
		// Before leave: a drain that sees no turn running sees it counted.
		defer func() { watch.Ended(res) }()
	}
	return c.run(ctx, req, emit)
}

// run is Run's turn, once it may start.
func (c *Chat) run(ctx context.Context, req Request, emit pipeline.Emit) Result {
	// The request came before the warm-up finished: it goes first.
	c.svc.opts.Warmer.Stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	now := c.svc.opts.Now
	c.mu.Lock()
	eng, cons, sess, tape := c.eng, c.cons, c.sess, c.tape
	rec := newRecordBuilder(req.Request, req.Input, req.Attachments, now())
	r := &running{cancel: cancel, rec: rec, sess: sess, model: eng.Controller().Model(), cons: cons}
	c.turns[r] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.turns, r)
		c.mu.Unlock()
		c.wg.Done()
	}()
	res := Result{Session: sess}

	if !c.opts.NoSave {
		// Another writer may have added turns since this chat looked:
		// the history must hold them.
		if sync, err := sess.Reload(); err == nil && len(sync.Added) > 0 && req.Synced != nil {
			req.Synced(sync)
		}
	}
	if req.Check {
		if st := eng.Controller().Check(ctx); st.Err != nil {
			res.Err = st.Err
			msg := st.Err.Error()
			if ctx.Err() != nil {
				res.Err = fmt.Errorf("%w: %w", pipeline.ErrCancelled, ctx.Err())
				msg = "cancelled — nothing more will run this turn"
			}
			emit(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: msg, Fatal: true})
			return res
		}
	}
	res.Ran = true
	if tape != nil {
		tape.BeginTurn(req.Request, req.Attachments)
	}
	turn := pipeline.Turn{Request: req.Request, Input: req.Input, Attachments: req.Attachments, History: sess.History(), Earlier: sess.earlier(),
		Constraints: cons, PlanOnly: req.PlanOnly, System: c.opts.System, OutputDir: c.opts.OutputDir, Workspace: c.opts.Workspace, Approve: req.Approve, Chat: c.id,
		SpillDirQuota: c.opts.SpillQuota}
	if c.opts.Approve != nil {
		turn.Approve = c.opts.Approve // the operator decides, not the front end's user
	}
	// What the user typed and attached grants again in this chat's later
	// turns — from memory, never from the session file.
	sess.gave(pipeline.Given{Request: req.Request, Attachments: slices.Clone(req.Attachments)})
	if req.Review != nil {
		turn.Review = func(ctx context.Context, p pipeline.Plan) (pipeline.Plan, error) {
			rec.reviewing(p)
			out, err := req.Review(ctx, p)
			rec.reviewed(err)
			return out, err
		}
	}
	reach := c.reach.turn()
	res.Report, res.Err = run(ctx, eng, turn, func(ev pipeline.Event) {
		rec.observe(ev)
		reach.observe(ev)
		emit(ev)
	})
	reach.settle()
	// A plan alone is a look ahead, not a turn of the chat: kept, its
	// unanswered request would be the next turn's history and a later
	// --continue's newest session.
	if record, ok := rec.finish(res.Report, res.Err, now()); ok && !req.PlanOnly {
		res.Record = sess.add(record, r.model, cons)
	}
	if !c.opts.NoSave && !req.PlanOnly {
		res.Sync, res.SaveErr = sess.Save()
		res.Saved = res.SaveErr == nil
	}
	if tape != nil {
		res.TapeErr = tape.Save()
	}
	return res
}

// ErrInternal is wrapped when a stage of the pipeline panicked: a bug,
// reported as the turn's failure.
var ErrInternal = errors.New("internal error in the pipeline")

// run runs the turn, turning a panic into an error.
func run(ctx context.Context, eng *pipeline.Engine, t pipeline.Turn, emit pipeline.Emit) (rep *pipeline.Report, err error) {
	defer func() {
		if r := recover(); r != nil {
			rep, err = nil, fmt.Errorf("%w: %v", ErrInternal, r)
		}
	}()
	return eng.Run(ctx, t, emit)
}

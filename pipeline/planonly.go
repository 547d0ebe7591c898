package pipeline

import (
	"context"
	"time"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/planning"
)

// PlanResult is what the planning stage of one request produced, with
// what it took: what `chorus eval` scores. It comes from the same prompt,
// schema, parser, re-ask and validator as a real turn's plan.
type PlanResult struct {
	// Replies are the controller's raw planning replies, in order: one,
	// or two when the first was cut off or unreadable and was re-asked.
	Replies []string `json:"replies"`
	// Raw is the task list as the parser read the accepted reply, before
	// validation; nil when no reply could be read.
	Raw []flow.Task `json:"raw,omitempty"`
	// Plan is the validated plan, as a turn would run it. When no reply
	// could be read it is empty and its note says why.
	Plan flow.Plan `json:"plan"`
	// ValidAsWritten says the first reply was a plan the validator had
	// nothing to change in: strict JSON (no prose, fences or trailing
	// commas), not cut off, every task kept with no repair note.
	ValidAsWritten bool `json:"valid_as_written"`
	// Usable says the stage ended with a plan a turn could run: a reply
	// was read (after the re-ask, if needed) and, if it named tasks, at
	// least one survived validation.
	Usable bool `json:"usable"`
	// Calls are the controller calls made, each with its prompt and reply
	// tokens and time: the planning call(s), then selection's if any.
	Calls []flow.ControllerCall `json:"calls"`
	// PlanElapsed is the planning stage's wall time, re-ask included.
	PlanElapsed time.Duration `json:"plan_elapsed"`
	// Models are the selection stage's choices, one per task, when
	// selection was asked for.
	Models []flow.ModelEvent `json:"models,omitempty"`
}

// PlanOnly runs the planning stage of turn t — and the selection stage
// too when selectModels is set — and returns what it produced, without
// running any task. It is `chorus eval`'s way into the pipeline: the same
// conversation head, schema, parser, re-ask and validator as Run, so a
// model's score is the score of the plans Chorus would really run. The
// error is non-nil only when the controller could not be asked (not
// reachable, model not pulled, cancelled); a reply that cannot be read is
// a result, not an error.
func (e *Engine) PlanOnly(ctx context.Context, t Turn, selectModels bool) (PlanResult, error) {
	var models []flow.ModelEvent
	emit := syncEmit(func(ev flow.Event) {
		if m, ok := ev.(flow.ModelEvent); ok {
			models = append(models, m)
		}
	})
	run := e.newTurnRun(ctx, t, emit)
	run.attachNamed() // the media the request names are the turn's resources, as in Run
	script := run.script
	tr := &planning.Trace{}
	start := time.Now()
	p, err := run.planner.Plan(run.ctx, tr, nil)
	res := PlanResult{Replies: tr.Replies, Raw: tr.Raw, Plan: p, PlanElapsed: time.Since(start)}
	if err != nil {
		res.Calls = script.Calls()
		if ctx.Err() != nil {
			return res, flow.Cancelled(ctx)
		}
		return res, err
	}
	res.Usable = tr.OK && (len(tr.Raw) == 0 || len(p.Tasks) > 0)
	res.ValidAsWritten = tr.OK && tr.AcceptAt == 0 && tr.FirstOK && len(p.Notes) == 0 && len(p.Tasks) == len(tr.Raw)
	if selectModels && len(p.Tasks) > 0 {
		d := run.dispatcher()
		d.settle(p)
		d.choose(p)
		d.wait()
		if ctx.Err() != nil {
			res.Calls = script.Calls()
			return res, flow.Cancelled(ctx)
		}
	}
	res.Models = models
	res.Calls = script.Calls()
	return res, nil
}

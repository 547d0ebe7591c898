package pipeline

import (
	"slices"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
)

// The early answer (early.go) and the revision (revise.go) compose: when a
// task the early answer named fails for good, the answer is already on the
// user's screen, followed by its correction line. The plan is still
// revised — the revision call continues the conversation after that answer
// — its tasks run to their end, and one more answer call goes on from
// where the answer stopped, saying what was made instead ("The video model
// is down, so here is a still image instead: …"). Its tokens follow the
// answer's; the one answer event that ends the turn holds the whole text,
// and the report keeps the revision and its tasks.

// goOn revises the plan after an early answer when a task it named failed
// for good, runs the revision's tasks and returns what the answer goes on
// with ("" when no revision is due, or it added nothing). said and reply
// are the early answer's call, which the revision continues. The error is
// the turn's cancellation.
func (d *dispatcher) goOn(p flow.Plan, said controller.Message, reply controller.Reply, rep *flow.Report) (string, error) {
	d.mu.Lock()
	due := d.answering && d.waited && d.revisionDue()
	runs := slices.Clone(d.current)
	d.mu.Unlock()
	if !due {
		return "", nil
	}
	d.script.Add(said, controller.Message{Role: "assistant", Content: reply.Content})
	before := len(runs)
	runs, revs, err := d.revise(p, runs)
	rep.Revisions = append(rep.Revisions, revs...)
	rep.Tasks, rep.Files = execution.Reports(records(runs), d.e.opts.ResultCap), execution.Files(records(runs))
	if err != nil || d.ctx.Err() != nil {
		return "", flow.Cancelled(d.ctx)
	}
	if len(runs) == before {
		// The controller found no other way: the correction said what
		// was not made, and the workflow says the revision found none.
		return "", nil
	}
	d.emit(flow.StageEvent{Stage: flow.StageResponse})
	return d.resp.Continue(d.ctx, records(runs[before:]), revs, rep)
}

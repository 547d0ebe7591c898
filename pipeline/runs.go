package pipeline

import (
	"context"

	"github.com/chorusai/chorus/pipeline/flow"
)

// taskRun is one task of a turn while the dispatcher schedules it: its
// record (TaskRun, what the stages read and write) and the scheduling
// state around it. The scheduler goroutine owns it until the task starts;
// the task's goroutine owns it until it reports on the done channel,
// which publishes it back.
type taskRun struct {
	flow.TaskRun

	// The dispatcher's state (dispatch.go), guarded by its mutex but for
	// ctx, cancel, ready and done. ctx is the run's own: the turn's, or
	// less when the final plan withdraws an early run.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// ready closes when choice is set; pending holds the choice while
	// the controller is still to make it.
	ready   chan struct{}
	pending *flow.Choice
	// done closes when the run has finished (or was skipped).
	done chan struct{}
	// early: offered while the plan streamed; withdrawn says why the
	// final plan did not keep it.
	early, launched, finished bool
	withdrawn                 string
}

// records are the records of runs, for the stages that read them.
func records(runs []*taskRun) []*flow.TaskRun {
	out := make([]*flow.TaskRun, len(runs))
	for i, r := range runs {
		out[i] = &r.TaskRun
	}
	return out
}

package pipeline

import (
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/response"
)

// The early answer (response.early): when every task still running
// produces one file whose path Chorus fixed in advance — text-to-speech,
// image generation — and the answer needs only that path, not the file's
// content, the answer call starts at once, told that task N is producing
// that file, instead of waiting for the task to finish. A text-to-speech
// task at the end of a chain then runs while the controller writes the
// answer. A task known not to run (no model can run it) keeps the answer
// from starting early: its file will never exist, so no answer may name
// it. If a task the answer named then fails, is cancelled or times out,
// or writes elsewhere, the answer is followed by one line that corrects it,
// written locally (after a cancel too: no controller call); the report's
// task says so (TaskReport.Early, Correction), the session keeps the
// report, and --json has it in the report event. A task that failed for
// good is then still revised (revise.go): the revision and its tasks run
// after the answer, and the answer goes on with what they made
// (respond.go's continuation).

// checkEarly lets the answer start (closes answerNow) once every task of
// the final plan that has not finished is one whose file's path is fixed,
// the selection call is over and no revision is due. Called with d.mu held whenever a run
// finishes and when the plan starts.
func (d *dispatcher) checkEarly() {
	if d.answerNow == nil || d.answering || d.phase != started || d.revisionDue() {
		// A task failed for good: the revision comes first, and the
		// answer after it (revise.go).
		return
	}
	select {
	case <-d.asked:
	default:
		return
	}
	waiting := 0
	for _, r := range d.current {
		if r.finished {
			continue
		}
		if r.Fixed == "" || r.withdrawn != "" || (r.Choice != nil && r.Choice.None != "") {
			// A task with no model will never make its file: the answer
			// waits, so it cannot name that file.
			return
		}
		waiting++
	}
	if waiting > 0 {
		d.answering = true
		close(d.answerNow)
	}
}

// stillRunning lists the tasks of runs the early answer names while they
// run, for the response stage's event.
func stillRunning(runs []*taskRun) []int {
	var out []int
	for _, r := range runs {
		if r.Status == flow.StatusRunning {
			out = append(out, r.Task.ID)
		}
	}
	return out
}

// answerRuns is what the early answer is written from: the finished runs,
// and for each task still running a stand-in that says it is producing its
// fixed file (its own run is still being written by its goroutine). Called
// with d.mu held.
func (d *dispatcher) answerRuns() []*taskRun {
	out := make([]*taskRun, 0, len(d.current))
	for _, r := range d.current {
		if r.finished {
			out = append(out, r)
			continue
		}
		r.Promised = true
		out = append(out, &taskRun{TaskRun: flow.TaskRun{Task: r.Task, Choice: r.Choice, Status: flow.StatusRunning, Files: []string{r.Fixed}, Fixed: r.Fixed}})
	}
	return out
}

// finish waits for the tasks an early answer named while they ran, puts
// their real records in rep, and returns the line that corrects the
// answer for each that did not produce the file it named ("" when all
// did). Without an early answer it does nothing. Afterwards the turn's
// tasks have all finished: a revision may follow the answer (revise.go),
// and the tasks it adds run to their end before the answer goes on.
func (d *dispatcher) finish(rep *flow.Report) string {
	if !d.answering {
		return ""
	}
	<-d.ran
	d.mu.Lock()
	defer d.mu.Unlock()
	d.release()
	d.waited = true
	runs := slices.Clone(d.current)
	var fixes []string
	for _, r := range runs {
		if r.Correction = response.Correction(&r.TaskRun); r.Correction != "" {
			fixes = append(fixes, r.Correction)
		}
	}
	rep.Tasks, rep.Files = execution.Reports(records(runs), d.e.opts.ResultCap), execution.Files(records(runs))
	if len(fixes) == 0 {
		return ""
	}
	return "_Correction: " + strings.Join(fixes, "; ") + "._"
}

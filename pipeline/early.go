package pipeline

import (
	"slices"
	"strings"

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

// waitNamed waits for the tasks an early answer named while they ran and
// returns every run of the turn, once all have finished; false, at once,
// without an early answer. Afterwards a revision may follow the answer
// (revise.go), and the tasks it adds run to their end before the answer
// goes on.
func (d *dispatcher) waitNamed() ([]*taskRun, bool) {
	if !d.answeringEarly() {
		return nil, false
	}
	<-d.ran
	d.mu.Lock()
	defer d.mu.Unlock()
	d.release()
	d.waited = true
	return slices.Clone(d.current), true
}

// answeringEarly reports whether the answer began before every task had
// finished.
func (d *dispatcher) answeringEarly() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.answering
}

// finish waits for the tasks an early answer named while they ran, puts
// their real records in rep, and returns the line that corrects the
// answer for each that did not produce the file it named ("" when all
// did). Without an early answer it does nothing.
func (tr *turnRun) finish(d *dispatcher, rep *flow.Report) string {
	runs, ok := d.waitNamed()
	if !ok {
		return ""
	}
	var fixes []string
	for _, r := range runs {
		if r.Correction = response.Correction(&r.TaskRun); r.Correction != "" {
			fixes = append(fixes, r.Correction)
		}
	}
	tr.report(rep, runs)
	if len(fixes) == 0 {
		return ""
	}
	return "_Correction: " + strings.Join(fixes, "; ") + "._"
}

package pipeline

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
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

// statusRunning is the status the early answer's prompt gives a task that
// is still producing its file. No event or report keeps it: the report is
// made again when the task has finished.
const statusRunning = "running"

// fixedExt is the file extension a task's file is given in advance: the
// one the same kind of task produced last on this engine, else the usual
// one of its modality.
func (e *Engine) fixedExt(task string, m skills.Modality) string {
	if e.exts != nil {
		if v, ok := e.exts.Load(task); ok {
			return v.(string)
		}
	}
	switch m {
	case skills.Audio:
		return ".wav"
	case skills.Video:
		return ".mp4"
	}
	return ".png"
}

// fixPath returns the path Chorus fixes in advance for task's file, or ""
// when the answer would need more than that path: the option is off, the
// task produces text (or several kinds of output), a tool or the
// controller runs it, or it makes an image a vision controller would look
// at when it answers.
func (d *dispatcher) fixPath(task Task) string {
	if !d.e.opts.EarlyAnswer {
		return ""
	}
	s, ok := d.e.cat.Skill(task.Task)
	if !ok || s.Tool != nil || s.Controller || len(s.Outputs) != 1 || !s.Outputs[0].Media() {
		return ""
	}
	m := s.Outputs[0]
	if m == skills.Image && d.canSee {
		return ""
	}
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	name := fmt.Sprintf("%s-%s-%d-%s%s", time.Now().Format("20060102-150405"), safeName(task.Task), task.ID, hex.EncodeToString(suffix[:]), d.e.fixedExt(task.Task, m))
	return filepath.Join(d.outDir, name)
}

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
		if r.fixed == "" || r.withdrawn != "" || (r.choice != nil && r.choice.none != "") {
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
		if r.status == statusRunning {
			out = append(out, r.task.ID)
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
		r.promised = true
		out = append(out, &taskRun{task: r.task, choice: r.choice, status: statusRunning, files: []string{r.fixed}, fixed: r.fixed})
	}
	return out
}

// finish waits for the tasks an early answer named while they ran, puts
// their real records in rep, and returns the line that corrects the
// answer for each that did not produce the file it named ("" when all
// did). Without an early answer it does nothing. Afterwards the turn's
// tasks have all finished: a revision may follow the answer (revise.go),
// and the tasks it adds run to their end before the answer goes on.
func (d *dispatcher) finish(rep *Report) string {
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
		if r.correction = correction(r); r.correction != "" {
			fixes = append(fixes, r.correction)
		}
	}
	rep.Tasks, rep.Files = reportTasks(runs, d.e.opts.ResultCap), reportFiles(runs)
	if len(fixes) == 0 {
		return ""
	}
	return "_Correction: " + strings.Join(fixes, "; ") + "._"
}

// correction says how r, finished, went against what an early answer said
// of it — that it was producing its fixed file: failed (or timed out),
// cancelled, or wrote elsewhere; "" when the file is there, or when no
// answer named it.
func correction(r *taskRun) string {
	switch {
	case !r.promised:
		return ""
	case r.cancelled:
		return fmt.Sprintf("task %d (%s) was cancelled, so %s was not produced", r.task.ID, r.task.Task, r.fixed)
	case r.status != StatusOK:
		return fmt.Sprintf("task %d (%s) failed, so %s was not produced: %s", r.task.ID, r.task.Task, r.fixed, text.OneLine(r.err, 200))
	case !slices.Contains(r.files, r.fixed):
		return fmt.Sprintf("task %d (%s) wrote %s, not %s", r.task.ID, r.task.Task, strings.Join(r.files, ", "), r.fixed)
	}
	return ""
}

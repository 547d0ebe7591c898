package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
)

// taskStatus is what the plan pane shows for a task.
type taskStatus int

const (
	taskPending taskStatus = iota
	taskRunning
	taskDone
	taskFailed
	taskSkipped
)

// logLine is one entry of a task's execution log.
type logLine struct {
	at   time.Time
	text string
	err  bool
}

// taskState follows one task of the plan through selection and execution.
type taskState struct {
	task     pipeline.Task
	status   taskStatus
	choice   *pipeline.ModelEvent
	model    string
	endpoint string
	started  time.Time
	elapsed  time.Duration
	// waitUntil is when a Hugging Face "model loading" wait ends.
	waitUntil time.Time
	log       []logLine
	result    string
	files     []string
	err       string
	attempts  []pipeline.Attempt
}

// turnState is one request and everything the pipeline reported about it.
// The panes show the running turn, or the last one.
type turnState struct {
	id          int
	request     string
	attachments []string
	started     time.Time
	ended       time.Time
	stage       pipeline.Stage

	plan     *pipeline.PlanEvent
	tasks    []*taskState // plan order
	byID     map[int]*taskState
	errors   []pipeline.ErrorEvent
	debug    []pipeline.DebugEvent
	report   *pipeline.Report
	answer   *chat.Message
	tokens   int
	tps      float64
	err      error
	canceled bool
	done     bool
	model    string
}

func newTurn(id int, request string, attachments []string, model string, now time.Time) *turnState {
	return &turnState{id: id, request: request, attachments: attachments, started: now, model: model, byID: map[int]*taskState{}}
}

// apply records one pipeline event. It reports whether the assistant
// message's text changed.
func (t *turnState) apply(ev pipeline.Event, now time.Time) (textChanged bool) {
	switch ev := ev.(type) {
	case pipeline.StageEvent:
		t.stage = ev.Stage
	case pipeline.PlanEvent:
		pe := ev
		t.plan = &pe
		t.tasks = t.tasks[:0]
		clear(t.byID)
		for _, task := range ev.Tasks {
			ts := &taskState{task: task}
			t.tasks = append(t.tasks, ts)
			t.byID[task.ID] = ts
		}
	case pipeline.ModelEvent:
		me := ev
		ts := t.task(ev.ID, ev.Task)
		ts.choice = &me
		ts.model, ts.endpoint = ev.Model, ev.Endpoint
	case pipeline.TaskStartEvent:
		ts := t.task(ev.ID, ev.Task)
		ts.status, ts.started = taskRunning, now
		ts.model, ts.endpoint = ev.Model, ev.Endpoint
		where := ev.Model
		if where == "" {
			where = "the controller"
		}
		ts.log = append(ts.log, logLine{at: now, text: fmt.Sprintf("started on %s (%s)", where, ev.Endpoint)})
	case pipeline.TaskProgressEvent:
		ts := t.task(ev.ID, "")
		ts.log = append(ts.log, logLine{at: now, text: ev.Message})
		if ev.WaitMS > 0 {
			ts.waitUntil = now.Add(time.Duration(ev.WaitMS) * time.Millisecond)
		}
	case pipeline.TaskEndEvent:
		ts := t.task(ev.ID, ev.Task)
		ts.elapsed = time.Duration(ev.ElapsedMS) * time.Millisecond
		ts.waitUntil = time.Time{}
		ts.result, ts.files, ts.err, ts.attempts = ev.Result, ev.Files, ev.Error, ev.Attempts
		if ev.Model != "" {
			ts.model, ts.endpoint = ev.Model, ev.Endpoint
		}
		switch {
		case ev.Skipped:
			ts.status = taskSkipped
			ts.log = append(ts.log, logLine{at: now, text: "skipped: " + ev.Error, err: true})
		case ev.Status == pipeline.StatusOK:
			ts.status = taskDone
		default:
			ts.status = taskFailed
			ts.log = append(ts.log, logLine{at: now, text: ev.Error, err: true})
		}
	case pipeline.TokenEvent:
		if t.answer != nil {
			t.answer.Text += ev.Text
			return true
		}
	case pipeline.AnswerEvent:
		t.tokens, t.tps = ev.Tokens, ev.TokensPerSecond
		if t.answer != nil && t.answer.Text != ev.Text {
			t.answer.Text = ev.Text
			return true
		}
	case pipeline.ErrorEvent:
		t.errors = append(t.errors, ev)
	case pipeline.DebugEvent:
		t.debug = append(t.debug, ev)
	case pipeline.ReportEvent:
		rep := ev.Report
		t.report = &rep
	}
	return false
}

// task returns the state of task id, creating it for events that arrive
// without a plan (a resumed or partial stream).
func (t *turnState) task(id int, name string) *taskState {
	if ts, ok := t.byID[id]; ok {
		return ts
	}
	ts := &taskState{task: pipeline.Task{ID: id, Task: name}}
	t.byID[id] = ts
	t.tasks = append(t.tasks, ts)
	return ts
}

// finish records the engine's return.
func (t *turnState) finish(rep *pipeline.Report, err error, now time.Time) {
	t.done, t.ended = true, now
	if rep != nil && t.report == nil {
		t.report = rep
	}
	t.err = err
	// Turning the plan down in review is the user's choice, like Ctrl+C:
	// a cancelled turn, not a failure.
	t.canceled = errors.Is(err, pipeline.ErrCancelled) || errors.Is(err, errPlanRejected)
	// Tasks still pending or running when a turn ends did not finish.
	for _, ts := range t.tasks {
		if ts.status == taskPending || ts.status == taskRunning {
			ts.status = taskSkipped
			if t.canceled {
				ts.log = append(ts.log, logLine{at: now, text: "cancelled", err: true})
			}
		}
	}
}

// elapsed is how long the turn ran, or has been running.
func (t *turnState) elapsed(now time.Time) time.Duration {
	if t.done {
		return t.ended.Sub(t.started)
	}
	return now.Sub(t.started)
}

// files returns every file the turn produced.
func (t *turnState) files() []string {
	if t.report != nil && len(t.report.Files) > 0 {
		return t.report.Files
	}
	var out []string
	for _, ts := range t.tasks {
		out = append(out, ts.files...)
	}
	return out
}

// fatalText explains why the turn ended without an answer.
func (t *turnState) fatalText() string {
	if t.err == nil {
		return ""
	}
	if t.canceled {
		return "Cancelled — nothing more will run this turn."
	}
	msg := t.err.Error()
	for _, e := range t.errors {
		if e.Fatal && e.Message != "" && !strings.Contains(msg, e.Message) {
			msg = e.Message + " (" + msg + ")"
			break
		}
	}
	return msg
}

// humanDuration formats d compactly: 850ms, 3.2s, 1m05s.
func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0.0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	m := int(d.Minutes())
	return fmt.Sprintf("%dm%02ds", m, int(d.Seconds())-60*m)
}

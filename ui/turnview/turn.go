package turnview

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline"
)

// The statuses, each with its glyph in the panes: · pending, a spinner
// while running, ✓ done, ✗ failed, ⊘ skipped (never ran: no model, a
// failed dependency), ⊝ cancelled (the user stopped the turn first).
const (
	TaskPending TaskStatus = iota
	TaskRunning
	TaskDone
	TaskFailed
	TaskSkipped
	TaskCancelled
)

// TurnState is one request and everything the pipeline reported about
// it, as the panes show it (TaskState is one of its tasks).
// The panes show the running turn, or the last one.
type TurnState struct {
	ID          int
	Request     string
	Attachments []string
	Started     time.Time
	Ended       time.Time
	Stage       pipeline.Stage

	Plan *pipeline.PlanEvent
	// Planning is true while the plan still streams: Plan then holds the
	// tasks that arrived so far (plan_task events), some maybe running.
	Planning bool
	// Revisions are the plan's revisions after tasks failed for good, in
	// order; their tasks are in Tasks after the plan's.
	Revisions []pipeline.Revision
	Tasks     []*TaskState // plan order
	byID      map[int]*TaskState
	Errors    []pipeline.ErrorEvent
	// Debug holds the debug events of the turn while it is the newest.
	Debug  []pipeline.DebugEvent
	Report *pipeline.Report
	// Answer is the answer's Markdown: streamed tokens, then the final
	// text with the workflow section.
	Answer string
	Tokens int
	TPS    float64
	// Queue is the last word of the controller's queue: whether a call of
	// the turn waits for a free slot, and behind how many chats.
	Queue    pipeline.QueueEvent
	Err      error
	Canceled bool
	Done     bool
	Model    string
}

// NewTurnState starts the state of a turn sent at now.
func NewTurnState(id int, request string, attachments []string, model string, now time.Time) *TurnState {
	return &TurnState{ID: id, Request: request, Attachments: attachments, Started: now, Model: model, byID: map[int]*TaskState{}}
}

// Apply records one pipeline event, a pure step of the reducer (the clock is
// passed in). It reports whether the answer's text changed.
func (t *TurnState) Apply(ev pipeline.Event, now time.Time) (textChanged bool) {
	switch ev := ev.(type) {
	case pipeline.StageEvent:
		t.Stage = ev.Stage
	case pipeline.PlanTaskEvent:
		// A task of the plan still being written: shown at once, and it
		// may start before the plan is done.
		if t.Plan == nil {
			t.Plan = &pipeline.PlanEvent{}
		}
		t.Planning = true
		t.Plan.Tasks = append(t.Plan.Tasks, ev.Task)
		ts := t.Task(ev.Task.ID, ev.Task.Task)
		ts.Task = ev.Task
	case pipeline.TaskWithdrawnEvent:
		// The final plan does not keep it as it started: it goes; a task
		// of the same id in the final plan starts afresh.
		delete(t.byID, ev.ID)
		t.Tasks = slices.DeleteFunc(t.Tasks, func(ts *TaskState) bool { return ts.Task.ID == ev.ID })
		if t.Plan != nil {
			t.Plan.Tasks = slices.DeleteFunc(slices.Clone(t.Plan.Tasks), func(x pipeline.Task) bool { return x.ID == ev.ID })
		}
	case pipeline.PlanEvent:
		pe := ev
		t.Plan, t.Planning = &pe, false
		// Tasks that arrived while the plan streamed keep what they did
		// (a model, a run, a result) when the final plan keeps them.
		kept := t.byID
		t.Tasks, t.byID = nil, map[int]*TaskState{}
		for _, task := range ev.Tasks {
			ts := kept[task.ID]
			if ts == nil || !sameTask(ts.Task, task) {
				ts = &TaskState{Task: task}
			}
			t.Tasks = append(t.Tasks, ts)
			t.byID[task.ID] = ts
		}
	case pipeline.PlanRevisionEvent:
		t.revised(ev.Revision)
	case pipeline.ModelReasonEvent:
		// The controller writes its reasons after every pick: the task
		// may be running already.
		if ts, ok := t.byID[ev.ID]; ok && ts.Choice != nil {
			c := *ts.Choice
			c.Reason = ev.Reason
			ts.Choice = &c
		}
	case pipeline.ModelEvent:
		me := ev
		ts := t.Task(ev.ID, ev.Task)
		ts.Choice = &me
		ts.Model, ts.Endpoint, ts.Provider = ev.Model, ev.Endpoint, ev.Provider
	case pipeline.TaskStartEvent:
		ts := t.Task(ev.ID, ev.Task)
		ts.Status, ts.Started = TaskRunning, now
		ts.Model, ts.Endpoint, ts.Provider = ev.Model, ev.Endpoint, ev.Provider
		where := ev.Model
		if where == "" {
			where = "the controller"
		}
		ts.Log = append(ts.Log, LogLine{At: now, Text: fmt.Sprintf("started on %s (%s)", where, pipeline.Where(ts.Endpoint, ts.Provider))})
	case pipeline.TaskProgressEvent:
		ts := t.Task(ev.ID, "")
		ts.progress(LogLine{At: now, Text: ev.Message, Warn: ev.Fallback, Passing: ev.Passing})
		if ev.WaitMS > 0 {
			ts.WaitUntil = now.Add(time.Duration(ev.WaitMS) * time.Millisecond)
		}
	case pipeline.TaskEndEvent:
		t.ended(ev, now)
	case pipeline.TokenEvent:
		t.Answer += ev.Text
		return true
	case pipeline.AnswerEvent:
		t.Tokens, t.TPS = ev.Tokens, ev.TokensPerSecond
		if t.Answer != ev.Text {
			t.Answer = ev.Text
			return true
		}
	case pipeline.ErrorEvent:
		t.Errors = append(t.Errors, ev)
	case pipeline.DebugEvent:
		t.Debug = append(t.Debug, ev)
	case pipeline.QueueEvent:
		t.Queue = ev
	case pipeline.HostDownEvent:
		// In the execution log of the task that found it: its other
		// candidates, and the other tasks' on that host, are skipped.
		ts := t.Task(ev.ID, "")
		ts.Log = append(ts.Log, LogLine{At: now, Text: pipeline.HostDownText(ev), Warn: true})
	case pipeline.ReportEvent:
		rep := ev.Report
		t.Report = &rep
	}
	return false
}

// ended records a task's end: how long it took, what it made, where it
// really ran, and its final status.
func (t *TurnState) ended(ev pipeline.TaskEndEvent, now time.Time) {
	ts := t.Task(ev.ID, ev.Task)
	ts.Elapsed = time.Duration(ev.ElapsedMS) * time.Millisecond
	ts.WaitUntil = time.Time{}
	ts.Result, ts.Files, ts.Err, ts.Attempts = ev.Result, ev.Files, ev.Error, ev.Attempts
	if ev.Model != "" {
		// What ran may differ from what started: a fallback to the next
		// candidate, or a provider that handed over to another. The log
		// says where it really ran, as the answer's workflow does.
		if ev.Status == pipeline.StatusOK && ts.Status == TaskRunning &&
			(ev.Model != ts.Model || ev.Endpoint != ts.Endpoint || ev.Provider != ts.Provider) {
			ts.Log = append(ts.Log, LogLine{At: now, Text: fmt.Sprintf("ran on %s (%s)", ev.Model, pipeline.Where(ev.Endpoint, ev.Provider))})
		}
		ts.Model, ts.Endpoint, ts.Provider = ev.Model, ev.Endpoint, ev.Provider
	}
	switch {
	case ev.Cancelled:
		ts.Status = TaskCancelled
		ts.Log = append(ts.Log, LogLine{At: now, Text: "cancelled"})
	case ev.Skipped:
		ts.Status = TaskSkipped
		ts.Log = append(ts.Log, LogLine{At: now, Text: "skipped: " + ev.Error, Err: true})
	case ev.Status == pipeline.StatusOK:
		ts.Status = TaskDone
	default:
		ts.Status = TaskFailed
		ts.Log = append(ts.Log, LogLine{At: now, Text: ev.Error, Err: true})
	}
}

// revised records a revision: the failed tasks it answers, and every
// task that was skipped for them, are the replaced branch; the tasks it
// added follow the plan's, numbered by the revision.
func (t *TurnState) revised(r pipeline.Revision) {
	t.Revisions = append(t.Revisions, r)
	gone := map[int]bool{}
	for _, f := range r.After {
		gone[f.ID] = true
	}
	for _, ts := range t.Tasks { // in plan order: dependencies first
		if !gone[ts.Task.ID] && ts.Status == TaskSkipped {
			for _, d := range ts.Task.Dep {
				if gone[d] {
					gone[ts.Task.ID] = true
				}
			}
		}
		if gone[ts.Task.ID] {
			ts.Replaced = true
		}
	}
	for _, task := range r.Tasks {
		ts := t.Task(task.ID, task.Task)
		ts.Task, ts.Revision = task, len(t.Revisions)
	}
}

// sameTask reports whether a task that arrived while the plan streamed
// is the final plan's task of that id.
func sameTask(a, b pipeline.Task) bool {
	return a.ID == b.ID && a.Task == b.Task && slices.Equal(a.Dep, b.Dep) && maps.Equal(a.Args, b.Args)
}

// Task returns the state of task id, creating it for events that arrive
// without a plan (a resumed or partial stream).
func (t *TurnState) Task(id int, name string) *TaskState {
	if ts, ok := t.byID[id]; ok {
		return ts
	}
	ts := &TaskState{Task: pipeline.Task{ID: id, Task: name}}
	t.byID[id] = ts
	t.Tasks = append(t.Tasks, ts)
	return ts
}

// Asking marks task id as waiting for the user's approval of its tool, or
// (asking false) as answered; a task the turn does not have is ignored.
func (t *TurnState) Asking(id int, asking bool) {
	if ts, ok := t.byID[id]; ok {
		ts.Asking = asking
	}
}

// Waiting reports whether a task of the turn waits for the user's
// approval of its tool, and whether that holds the whole turn: no other
// task runs and the plan is written.
func (t *TurnState) Waiting() (waiting, held bool) {
	running := false
	for _, ts := range t.Tasks {
		switch {
		case ts.waiting():
			waiting = true
		case ts.Status == TaskRunning:
			running = true
		}
	}
	return waiting, waiting && !running && !t.Planning
}

// Finish records the engine's return.
func (t *TurnState) Finish(rep *pipeline.Report, err error, now time.Time) {
	t.Done, t.Ended = true, now
	if rep != nil && t.Report == nil {
		t.Report = rep
	}
	t.Err = err
	// Turning the plan down in review is the user's choice, like Ctrl+C:
	// a cancelled turn, not a failure.
	t.Canceled = errors.Is(err, pipeline.ErrCancelled) || errors.Is(err, ErrPlanRejected)
	// Tasks still pending or running when a turn ends did not finish:
	// stopped by the user when the turn was cancelled, else never run.
	for _, ts := range t.Tasks {
		if ts.Status == TaskPending || ts.Status == TaskRunning {
			ts.Status = TaskSkipped
			if t.Canceled {
				ts.Status = TaskCancelled
				ts.Log = append(ts.Log, LogLine{At: now, Text: "cancelled"})
			}
		}
	}
}

// Elapsed is how long the turn ran, or has been running.
func (t *TurnState) Elapsed(now time.Time) time.Duration {
	if t.Done {
		return t.Ended.Sub(t.Started)
	}
	return now.Sub(t.Started)
}

// Files returns every file the turn produced.
func (t *TurnState) Files() []string {
	if t.Report != nil && len(t.Report.Files) > 0 {
		return t.Report.Files
	}
	var out []string
	for _, ts := range t.Tasks {
		out = append(out, ts.Files...)
	}
	return out
}

// FatalText explains why the turn ended without an answer.
func (t *TurnState) FatalText() string {
	if t.Err == nil {
		return ""
	}
	if t.Canceled {
		return "Cancelled — nothing more will run this turn."
	}
	msg := t.Err.Error()
	for _, e := range t.Errors {
		if e.Fatal && e.Message != "" && !strings.Contains(msg, e.Message) {
			msg = e.Message + " (" + msg + ")"
			break
		}
	}
	return msg
}

// ErrPlanRejected cancels a turn whose plan the user turned down.
var ErrPlanRejected = errors.New("the plan was cancelled in review")

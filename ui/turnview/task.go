package turnview

import (
	"time"

	"github.com/chorusai/chorus/pipeline"
)

// TaskStatus is what the plan pane shows for a task.
type TaskStatus int

// LogLine is one entry of a task's execution log.
type LogLine struct {
	At   time.Time
	Text string
	Err  bool
	// Warn marks a failed hop of a fallback (pipeline.HopLine).
	Warn bool
	// Passing: the task's next progress replaces the line.
	Passing bool
}

// TaskState follows one task of the plan through selection and execution.
type TaskState struct {
	Task     pipeline.Task
	Status   TaskStatus
	Choice   *pipeline.ModelEvent
	Model    string
	Endpoint string
	// Provider is the Inference Provider behind a huggingface endpoint.
	Provider string
	Started  time.Time
	Elapsed  time.Duration
	// WaitUntil is when a Hugging Face "model loading" wait ends.
	WaitUntil time.Time
	Log       []LogLine
	Result    string
	Files     []string
	Err       string
	Attempts  []pipeline.Attempt
	// Revision is the revision that added the task, from 1; 0 for the
	// plan's own tasks.
	Revision int
	// Replaced: the task failed, or was skipped for a failed task, and a
	// revision of the plan answered it — its branch is marked.
	Replaced bool
	// Asking: the task's tool waits for the user's approval; nothing
	// runs meanwhile, so the panes say "waiting for you", not a spinner
	// and a clock.
	Asking bool
}

// waiting reports whether the task is held by a question to the user: it
// started, and its tool waits for approval.
func (ts *TaskState) waiting() bool { return ts.Asking && ts.Status == TaskRunning }

// progress adds a progress line to the log, in place of a passing one
// before it.
func (ts *TaskState) progress(l LogLine) {
	if n := len(ts.Log); n > 0 && ts.Log[n-1].Passing {
		ts.Log = ts.Log[:n-1]
	}
	ts.Log = append(ts.Log, l)
}

// Fallback says what failed before the model that ran, when it was not the
// first tried (pipeline.FallbackNote): empty otherwise.
func (ts *TaskState) Fallback() string {
	if ts.Status != TaskDone {
		return ""
	}
	return pipeline.FallbackNote(ts.Attempts)
}

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
}

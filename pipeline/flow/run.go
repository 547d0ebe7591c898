package flow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// EndpointController is the endpoint name of tasks the controller runs.
const EndpointController = "controller"

// Option is a model that can run a task now, with its ready routes: one
// of a Choice's candidates.
type Option struct {
	Model  skills.Model
	Routes []endpoints.Endpoint
	// Provider is the Inference Provider its huggingface route would try
	// first, "" when it has none.
	Provider string
}

// Info is the option as events and the report show a candidate.
func (c *Option) Info() Candidate {
	kinds := make([]string, len(c.Routes))
	for i, r := range c.Routes {
		kinds[i] = string(r.Kind())
	}
	size := ""
	if c.Model.Size() > 0 {
		size = c.Model.HumanSize()
	}
	desc := c.Model.Description
	if c.Model.Niche != "" {
		desc = "(niche: " + c.Model.Niche + ") " + desc
	}
	return Candidate{ID: c.Model.ID, Endpoint: strings.Join(kinds, ","), Provider: c.Provider, Downloads: c.Model.Downloads,
		License: c.Model.License, Size: size, Description: desc}
}

// Choice is the selection stage's decision for one task: what the
// execution stage runs it on, and what the model event and the report say
// of it.
type Choice struct {
	Task  Task
	Skill *skills.Skill
	// Controller is true when the controller LLM runs the task itself
	// (ControllerModel).
	Controller      bool
	ControllerModel string
	// Ranked are the candidates to try in order: the chosen one first.
	Ranked []*Option
	// Reason says why the first was chosen, Decided what decided
	// ("ranked", "controller choice", "constraint: smallest"…).
	Reason  string
	Decided string
	// Named says why the model the request names cannot run the task
	// (ending in " — "), said before the reason; "" when it names none.
	Named string
	// Unmet says which constraint could not be applied and what was done
	// instead, so it is never ignored silently.
	Unmet string
	// LocalOnly is whether the local-only constraint applies to the task,
	// passed on to the endpoints that run it.
	LocalOnly bool
	// None explains why nothing can run the task; Ranked is then empty.
	None string
	// Top and Excluded are reported in the model event.
	Top      []Candidate
	Excluded []Exclusion
}

// Event is the model event that publishes c.
func (c *Choice) Event() ModelEvent {
	ev := ModelEvent{ID: c.Task.ID, Task: c.Task.Task, Reason: c.Why(), Decided: c.Decided, Candidates: c.Top, Excluded: c.Excluded, Unmet: c.Unmet}
	switch {
	case c.Controller:
		ev.Model, ev.Endpoint = c.ControllerModel, EndpointController
	case len(c.Ranked) > 0:
		ev.Model = c.Ranked[0].Model.ID
		ev.Endpoint = string(c.Ranked[0].Routes[0].Kind())
		ev.Provider = PlannedProvider(c.Ranked[0].Routes[0], c.Task.Task, ev.Model)
	}
	return ev
}

// Why is the reason the choice is reported with.
func (c *Choice) Why() string { return c.Named + c.Reason }

// PlannedProvider names the provider route would try first for model,
// where the endpoint reaches several and can tell without the network;
// "" otherwise.
func PlannedProvider(route endpoints.Endpoint, task, model string) string {
	if pn, ok := route.(endpoints.ProviderNamer); ok {
		return pn.Provider(task, model)
	}
	return ""
}

// ResolvedProvider names the provider route will try first for model,
// asking what the call itself would ask (the Hub's mapping, cached for
// the call): what a task's start, and a preview, name.
func ResolvedProvider(ctx context.Context, route endpoints.Endpoint, task, model string) string {
	if pr, ok := route.(endpoints.ProviderResolver); ok {
		return pr.ResolveProvider(ctx, task, model)
	}
	return PlannedProvider(route, task, model)
}

// Fault says why a run failed, for the revision's rule.
type Fault int

const (
	// FaultNone: the run succeeded, or did not fail on its own — a
	// dependency failed, the user cancelled, the final plan withdrew it,
	// the output directory could not be made.
	FaultNone Fault = iota
	// FaultForGood: every route was tried, no model qualifies, the
	// output was of the wrong kind, the time ran out — another skill may
	// still serve the request.
	FaultForGood
	// FaultInput: the user's input cannot be used (endpoints.ErrBadInput);
	// no other route fixes it.
	FaultInput
	// FaultRefused: the user refused the tool; no plan goes around that.
	FaultRefused
)

// Withdrawal is the cause an early run is cancelled with when the final
// plan does not keep it: Why says why.
type Withdrawal struct{ Why string }

func (w Withdrawal) Error() string { return w.Why }

// StatusRunning is the status the early answer's prompt gives a task that
// is still producing its file. No event or report keeps it: the report is
// made again when the task has finished.
const StatusRunning = "running"

// Approval is a call the turn must approve before it runs: an MCP tool
// that is not annotated read-only, or is annotated destructive.
type Approval struct {
	// ID and Task are the plan's task; Tool is the tool's name
	// ("everything.toggle-simulated-logging").
	ID   int    `json:"id"`
	Task string `json:"task"`
	Tool string `json:"tool"`
	// Reason says why it asks ("it is not annotated read-only, so it may
	// change things").
	Reason string `json:"reason"`
	// Args are the call's arguments as the task has them.
	Args map[string]string `json:"args,omitempty"`
}

// ErrNotApproved is wrapped by the error of a call the turn did not
// approve.
var ErrNotApproved = errors.New("not approved")

// TaskRun is the record of one task's run: what it was given, where it
// ran, what it made or why it failed. The execution stage writes it; the
// answer, a revision and the report read it once the run has ended.
type TaskRun struct {
	Task   Task
	Choice *Choice
	// Args are the arguments as the task ran with them: references
	// resolved, values as the gate handed them over.
	Args    map[string]string
	Status  string
	Skipped bool
	// Cancelled: the turn was cancelled before the task finished.
	Cancelled bool
	// Fault says why a failed run failed, for the revision's rule: only a
	// task that failed for good is revised.
	Fault Fault
	Text  string
	// Spilled is the file holding the whole text when it was over the
	// result cap; Text is then its start.
	Spilled string
	Data    json.RawMessage
	Files   []string
	// Kinds says what each file is where its modality does not (a mask,
	// the annotated preview).
	Kinds    map[string]skills.FileKind
	Err      string
	Attempts []Attempt
	Model    string
	Endpoint string
	Provider string
	Elapsed  time.Duration
	// Fixed is the path Chorus fixed in advance for the task's file (the
	// early answer), "" for a task whose answer needs more than a path;
	// Promised is set once an early answer named it; Correction is the
	// line that corrects that answer when the file was not made there.
	Fixed      string
	Promised   bool
	Correction string
}

// Fail records that the run failed, saying why.
func (r *TaskRun) Fail(msg string) {
	r.Status, r.Err = StatusError, msg
}

// EndEvent is the task_end event the run's record makes.
func (r *TaskRun) EndEvent() TaskEndEvent {
	files := r.Files
	if files == nil {
		files = []string{}
	}
	return TaskEndEvent{ID: r.Task.ID, Task: r.Task.Task, Status: r.Status, Skipped: r.Skipped, Cancelled: r.Cancelled, Model: r.Model, Endpoint: r.Endpoint,
		Provider: r.Provider, Result: r.Text, Data: r.Data, Files: files, Error: r.Err, Attempts: r.Attempts, ElapsedMS: r.Elapsed.Milliseconds()}
}

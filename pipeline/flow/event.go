package flow

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// Event is something that happened during a turn. The pipeline publishes
// events in order through an Emit function; the TUI and `chorus run --json`
// consume the same stream. Type returns the event's JSON "type" value.
type Event interface {
	Type() string
}

// Emit receives a turn's events. The pipeline never calls it from two
// goroutines at once, and events arrive in the order they happened. It must
// not block for long: it runs on the pipeline's goroutines.
type Emit func(Event)

// Stage names a pipeline stage in events and errors.
type Stage string

// The four HuggingGPT stages, and Chorus's fifth, the revision of a plan
// whose tasks failed (pipeline/revise.go, planning.Planner.Revise),
// between execution and response.
const (
	StagePlanning  Stage = "planning"
	StageSelection Stage = "selection"
	StageExecution Stage = "execution"
	StageRevision  Stage = "revision"
	StageResponse  Stage = "response"
)

// StageEvent says a stage began.
type StageEvent struct {
	Stage Stage `json:"stage"`
	// Early lists, for the response stage, the tasks still running when
	// the answer started: each is producing a file at the path the answer
	// names (response.early).
	Early []int `json:"early,omitempty"`
}

// PlanEvent carries the validated plan.
type PlanEvent struct {
	Tasks       []Task      `json:"tasks"`
	Constraints Constraints `json:"constraints,omitzero"`
	Notes       []string    `json:"notes,omitempty"`
}

// PlanTaskEvent carries one task of the plan while the plan is still being
// written: complete, valid on its own, its inputs from tasks that came
// before it. It may start before the plan is done (streaming dispatch).
// The plan event that follows has the final plan; a task it does not keep
// unchanged gets a task_withdrawn event first.
type PlanTaskEvent struct {
	Task Task `json:"task"`
}

// TaskWithdrawnEvent says a task that started while the plan streamed is
// not part of the final plan as it started (the final plan dropped or
// changed it, or a task it used was withdrawn): its run was cancelled and
// its result is not used. It comes after the run's own end event, if it
// had started, and before the plan event.
type TaskWithdrawnEvent struct {
	ID     int    `json:"id"`
	Task   string `json:"task"`
	Reason string `json:"reason"`
}

// PlanRevisionEvent says the controller revised the rest of the plan after
// tasks failed for good (the fifth step, planning.Planner.Revise): the failed tasks it
// answers, the tasks it added — validated as any plan, numbered after
// every id the turn used — and the validator's repairs. Tasks is empty
// when the controller found no other way. The added tasks' model and task
// events follow, as a plan's do.
type PlanRevisionEvent struct {
	Revision
}

// ModelReasonEvent carries the controller's reason for a task's model
// when it arrives after the model event: the selection reply gives every
// pick first, so the tasks start, and the reasons after them.
type ModelReasonEvent struct {
	ID     int    `json:"id"`
	Reason string `json:"reason"`
}

// ModelEvent says which model will run a task and why.
type ModelEvent struct {
	ID       int    `json:"id"`
	Task     string `json:"task"`
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	// Provider is the Inference Provider a huggingface endpoint will try
	// first ("fal-ai"; "auto" when the router chooses); empty for other
	// endpoints.
	Provider string `json:"provider,omitempty"`
	Reason   string `json:"reason"`
	// Decided names what made the choice: "only candidate", "controller",
	// "named" (the request names the model), "constraint: smallest",
	// "constraint: best wer on common_voice", "fallback: top-ranked" or
	// "no candidate".
	Decided string `json:"decided"`
	// Candidates are the models considered, best-ranked first.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Excluded are models left out, each with the reason, and endpoints
	// that could not list the models they offer ("(ollama models)").
	Excluded []Exclusion `json:"excluded,omitempty"`
	// Unmet says which constraint could not be applied to this task and
	// what selection did instead ("no candidate reports cider:coco — fell
	// back to downloads"); empty when every constraint was applied.
	Unmet string `json:"unmet,omitempty"`
}

// TaskStartEvent says a task began running.
type TaskStartEvent struct {
	ID       int    `json:"id"`
	Task     string `json:"task"`
	Model    string `json:"model,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Provider is the Inference Provider tried first, as in ModelEvent.
	Provider string `json:"provider,omitempty"`
}

// TaskProgressEvent reports progress of a running task.
type TaskProgressEvent struct {
	ID      int    `json:"id"`
	Message string `json:"message"`
	// WaitMS is how long the endpoint expects to wait, for countdowns.
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Passing: the next progress of the task replaces this one (a
	// provider that failed, the next being tried).
	Passing bool `json:"passing,omitempty"`
	// Fallback: the message is the one line of a failed hop — a model (or
	// route) failed and the next is tried (HopLine); the full error is a
	// debug event of kind "fallback".
	Fallback bool `json:"fallback,omitempty"`
}

// Task statuses in TaskEndEvent.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// TaskEndEvent says a task finished, failed or was skipped.
type TaskEndEvent struct {
	ID     int    `json:"id"`
	Task   string `json:"task"`
	Status string `json:"status"`
	// Skipped is true when the task never ran (no qualifying model, a
	// failed dependency, cancellation); Status is then "error".
	Skipped bool `json:"skipped,omitempty"`
	// Cancelled is true when the turn was cancelled before the task
	// finished (while it ran, or before it started); Status is then
	// "error", and the task did not fail on its own.
	Cancelled bool   `json:"cancelled,omitempty"`
	Model     string `json:"model,omitempty"`
	Endpoint  string `json:"endpoint,omitempty"`
	// Provider is the Inference Provider that ran the task (or last
	// failed it) behind a huggingface endpoint; empty for others.
	Provider string          `json:"provider,omitempty"`
	Result   string          `json:"result"`
	Data     json.RawMessage `json:"data,omitempty"`
	Files    []string        `json:"files"`
	Error    string          `json:"error"`
	// Attempts lists every model/endpoint tried, in order.
	Attempts  []Attempt `json:"attempts,omitempty"`
	ElapsedMS int64     `json:"elapsed_ms"`
}

// TokenEvent is a piece of the streamed answer.
type TokenEvent struct {
	Text string `json:"text"`
}

// AnswerEvent carries the complete answer.
type AnswerEvent struct {
	Text string `json:"text"`
	// Tokens and TokensPerSecond describe the response generation call.
	Tokens          int     `json:"tokens,omitempty"`
	TokensPerSecond float64 `json:"tokens_per_second,omitempty"`
}

// ErrorEvent reports a failure of a stage. A turn can continue after some
// errors (a failed task); Fatal marks the ones that end it.
type ErrorEvent struct {
	Stage   Stage  `json:"stage"`
	Message string `json:"message"`
	Fatal   bool   `json:"fatal,omitempty"`
}

// DebugEvent carries a raw controller exchange, shown only when debugging.
type DebugEvent struct {
	Stage Stage `json:"stage"`
	// Kind is "prompt", "reply" or "tokens" for a controller exchange, or
	// "resolve": which of a task's several files a later task's argument
	// took, or "wait": a task the controller runs waits for the plan it is
	// still writing (what a stalled turn waits on).
	Kind    string `json:"kind"`
	Content string `json:"content"`
}

// QueueEvent says a controller call of the turn waits for a free slot on
// the controller server (controller.max_concurrent), with Ahead other chats
// to be served first; Waiting false says no call of the turn waits any
// more.
type QueueEvent struct {
	Waiting bool `json:"waiting"`
	Ahead   int  `json:"ahead"`
}

// QueueText says a QueueEvent for people: "waiting for the controller — 2
// chats ahead".
func QueueText(e QueueEvent) string {
	switch {
	case !e.Waiting:
		return ""
	case e.Ahead == 0:
		return "waiting for the controller — next in line"
	case e.Ahead == 1:
		return "waiting for the controller — 1 chat ahead"
	}
	return fmt.Sprintf("waiting for the controller — %d chats ahead", e.Ahead)
}

// HostDownEvent says a host did not answer at all — the connection was
// refused, its name did not resolve, its TLS handshake failed: the turn
// skips its other candidates without a call (HostDownText says it for
// people), and a front end's status shows the endpoint unreachable. Once
// per host per turn, from the task whose call found it.
type HostDownEvent struct {
	ID       int    `json:"id"`
	Host     string `json:"host"`
	Endpoint string `json:"endpoint"`
	Reason   string `json:"reason"`
}

// ReportEvent closes a turn with the execution record the answer's workflow
// section was written from.
type ReportEvent struct {
	Report Report `json:"report"`
}

// Type implementations.
func (StageEvent) Type() string         { return "stage" }
func (PlanEvent) Type() string          { return "plan" }
func (PlanTaskEvent) Type() string      { return "plan_task" }
func (PlanRevisionEvent) Type() string  { return "plan_revision" }
func (TaskWithdrawnEvent) Type() string { return "task_withdrawn" }
func (ModelReasonEvent) Type() string   { return "model_reason" }
func (ModelEvent) Type() string         { return "model" }
func (TaskStartEvent) Type() string     { return "task_start" }
func (TaskProgressEvent) Type() string  { return "task_progress" }
func (TaskEndEvent) Type() string       { return "task_end" }
func (TokenEvent) Type() string         { return "token" }
func (AnswerEvent) Type() string        { return "answer" }
func (ErrorEvent) Type() string         { return "error" }
func (DebugEvent) Type() string         { return "debug" }
func (ReportEvent) Type() string        { return "report" }
func (QueueEvent) Type() string         { return "queue" }
func (HostDownEvent) Type() string      { return "host_down" }

// MarshalEvent encodes e as one JSON object whose "type" field comes first.
func MarshalEvent(e Event) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// JSON for people and scripts: "<resource>-1", not "\u003cresource\u003e-1".
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	// Strings from models, servers and files carry no escape sequences,
	// C1 or bidi controls into a consumer that prints them.
	body := text.CleanJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	head := fmt.Sprintf(`{"type":%q`, e.Type())
	if len(body) <= 2 { // "{}"
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), body[1:]...), nil
}

// HostDownText says a HostDownEvent for people.
func HostDownText(e HostDownEvent) string {
	return fmt.Sprintf("%s is unreachable at %s (%s) — its other candidates are skipped this turn", whoIs(e.Endpoint), e.Host, e.Reason)
}

// whoIs names an endpoint kind's server for people.
func whoIs(endpoint string) string {
	switch skills.EndpointKind(endpoint) {
	case skills.EndpointHuggingFace:
		return "Hugging Face's router"
	case skills.EndpointLocal:
		return "the local inference server"
	case skills.EndpointOllama:
		return "Ollama"
	case skills.EndpointOpenAI:
		return "the OpenAI-compatible server"
	}
	return "the " + endpoint + " server"
}

package flow

import (
	"fmt"
	"strings"

	"github.com/chorusai/chorus/text"
)

// Candidate is a model selection considered for a task, as shown to the
// controller and in model events.
type Candidate struct {
	ID       string `json:"id"`
	Endpoint string `json:"endpoint"`
	// Provider is the Inference Provider the candidate's huggingface
	// route would try first ("fal-ai", "hf-inference"; "auto" when the
	// router chooses); empty when it has no such route.
	Provider    string `json:"provider,omitempty"`
	Downloads   int64  `json:"downloads,omitempty"`
	License     string `json:"license,omitempty"`
	Size        string `json:"size,omitempty"`
	Description string `json:"description,omitempty"`
}

// Exclusion is a catalog model selection left out, with the reason ("no
// Hugging Face token — set HF_TOKEN", "licence mit is not in the allow-list").
type Exclusion struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Attempt is one try of a task on one model and endpoint.
type Attempt struct {
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	// Provider is the Inference Provider behind a huggingface endpoint.
	Provider string `json:"provider,omitempty"`
	Error    string `json:"error,omitempty"`
	// Why is the error in a few words, for one-line summaries ("not
	// served by fal-ai (404), replicate (404)"); see endpoints.WhyFailed.
	Why       string `json:"why,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// TaskReport is the execution record of one task: what ran, where, for how
// long, and what it produced. The answer's workflow section is rendered from
// these records, never from the LLM's memory.
//
// How the task ended is its TaskEndEvent, embedded: one record of a
// finished task, built in one place (taskRun.endEvent), that the task_end
// event streams and the report keeps — they cannot drift apart. The report
// adds what the plan and selection knew.
type TaskReport struct {
	TaskEndEvent
	Dep     []int             `json:"dep"`
	Args    map[string]string `json:"args"`
	Decided string            `json:"decided,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	// Unmet is the model event's: a constraint selection could not apply.
	Unmet string `json:"unmet,omitempty"`
	// Early is the file the answer named while the task was still
	// producing it (response.early); Correction the line that followed
	// the answer because the task did not produce it there.
	Early      string `json:"early,omitempty"`
	Correction string `json:"correction,omitempty"`
}

// Where names where a model ran, for people: the endpoint, and the
// Inference Provider behind it when there is one — "huggingface (fal-ai)".
func Where(endpoint, provider string) string {
	if provider == "" {
		return endpoint
	}
	return endpoint + " (" + provider + ")"
}

// Report is the record of one turn.
type Report struct {
	Request     string   `json:"request"`
	Attachments []string `json:"attachments,omitempty"`
	// Named are the media files whose paths the user typed in the request
	// (not attached), which the turn treated as attachments; a session
	// keeps them as the turn's resources.
	Named       []string    `json:"named,omitempty"`
	Controller  string      `json:"controller"`
	Constraints Constraints `json:"constraints,omitzero"`
	Notes       []string    `json:"notes,omitempty"`
	// Tasks are the plan's tasks, then each revision's.
	Tasks []TaskReport `json:"tasks"`
	// Revisions are the plan's revisions after tasks failed for good
	// (planning.Planner.Revise), in order; at most planner.revise.
	Revisions []Revision `json:"revisions,omitempty"`
	// Files lists every generated file, full paths, in task order.
	Files     []string `json:"files,omitempty"`
	Answer    string   `json:"answer,omitempty"`
	ElapsedMS int64    `json:"elapsed_ms"`
	// Calls are the controller calls of the turn, in order, with their
	// token counts: what a local user waits for is mostly prefill.
	Calls []ControllerCall `json:"controller_calls,omitempty"`
}

// ControllerCall is one call to the controller model.
type ControllerCall struct {
	Stage Stage `json:"stage"`
	// PromptTokens is the prompt's length as the server counts it.
	PromptTokens int `json:"prompt_tokens"`
	// Prefilled estimates the prompt tokens the server had to evaluate:
	// those after the prefix this call shares with the previous one,
	// which the server's cache holds (see controller.Reply.Prefilled).
	Prefilled int `json:"prefilled_tokens"`
	// PromptEvalMS is how long the server spent on the prompt
	// (prompt_eval_duration): short when most of it came from the cache.
	PromptEvalMS int64 `json:"prompt_eval_ms,omitempty"`
	// Tokens is the reply's length.
	Tokens    int   `json:"tokens"`
	ElapsedMS int64 `json:"elapsed_ms"`
}

// Revision is one revision of a turn's plan: the failed tasks it answers,
// the tasks it added (validated, numbered after every id the turn used)
// and the validator's repairs. No tasks means the controller found no
// other way to serve the request.
type Revision struct {
	After []FailedTask `json:"after"`
	Tasks []Task       `json:"tasks"`
	Notes []string     `json:"notes,omitempty"`
}

// FailedTask is a task that failed for good, with why.
type FailedTask struct {
	ID    int    `json:"id"`
	Task  string `json:"task"`
	Error string `json:"error"`
}

// String says the revision in one line for people — the report, the log,
// the export: "revised after task 2 (text-to-video) failed: …; added task
// 4 (text-to-image)".
func (r Revision) String() string {
	var b strings.Builder
	b.WriteString("revised after ")
	for i, f := range r.After {
		if i > 0 {
			b.WriteString(listSep(i, len(r.After)))
		}
		fmt.Fprintf(&b, "task %d (%s)", f.ID, f.Task)
	}
	if len(r.After) == 1 {
		fmt.Fprintf(&b, " failed: %s", text.OneLine(r.After[0].Error, 160))
	} else {
		b.WriteString(" failed")
	}
	if len(r.Tasks) == 0 {
		b.WriteString("; the controller found no other way")
		return b.String()
	}
	b.WriteString("; added ")
	for i, t := range r.Tasks {
		if i > 0 {
			b.WriteString(listSep(i, len(r.Tasks)))
		}
		fmt.Fprintf(&b, "task %d (%s)", t.ID, t.Task)
	}
	return b.String()
}

// listSep separates the i-th item of an English list of n: ", " or " and ".
func listSep(i, n int) string {
	if i == n-1 {
		return " and "
	}
	return ", "
}

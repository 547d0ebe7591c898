package flow

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/controller"
)

// The stage markers end the last message of every controller call.
const (
	MarkPlan   = "STAGE: PLAN"
	MarkSelect = "STAGE: SELECT"
	MarkTask   = "STAGE: TASK"
	MarkAnswer = "STAGE: ANSWER"
	// markRevise asks for new tasks after some failed for good
	// (planning.Planner.Revise). Its rules travel in its own message, not in the head:
	// a turn that goes well never pays for them.
	MarkRevise = "STAGE: REVISE"
)

// PromptStage tells which stage a controller call serves from the content
// of its last message: StagePlanning, StageSelection, StageRevision or
// StageResponse, or "task" for a text task the controller does itself (""
// when it is none of Chorus's). Tests and tools that watch the controller's
// traffic use it.
func PromptStage(last string) string {
	last = strings.TrimSpace(last)
	for _, m := range []struct{ mark, stage string }{
		{MarkPlan, string(StagePlanning)}, {MarkSelect, string(StageSelection)}, {MarkTask, "task"}, {MarkAnswer, string(StageResponse)},
		{MarkRevise, string(StageRevision)},
	} {
		if strings.HasPrefix(last, m.mark) {
			return m.stage
		}
	}
	return ""
}

// Transcript is a turn's growing controller conversation: the head and
// the chat log, then each stage's message and reply (not to be confused
// with package conversation, a front end's chat of many turns). Stages add to it in
// order; calls that run beside others (selection, text tasks) read a copy.
type Transcript struct {
	mu    sync.Mutex
	msgs  []controller.Message
	calls []ControllerCall
	// of is the transcript a fork branched off (fork): its calls are
	// recorded there, the turn's one list.
	of *Transcript
}

// Fork returns a branch of the transcript as it is now: a call made on
// another slot of the server while the conversation goes on (an early
// pick while the plan streams, pipeline/earlypick.go). What the branch adds stays
// in it; its calls count among the turn's.
func (c *Transcript) Fork() *Transcript {
	c.mu.Lock()
	defer c.mu.Unlock()
	root := c
	if c.of != nil {
		root = c.of
	}
	return &Transcript{msgs: slices.Clone(c.msgs), of: root}
}

// Record notes one controller call for the report, and says it in the
// debug view: the prompt's tokens, how many were prefilled, the reply's.
func (c *Transcript) Record(stage Stage, r controller.Reply, took time.Duration, emit Emit) {
	call := ControllerCall{Stage: stage, PromptTokens: r.PromptEvalCount, Prefilled: r.Prefilled, PromptEvalMS: r.PromptEvalDuration.Milliseconds(),
		Tokens: r.EvalCount, ElapsedMS: took.Milliseconds()}
	root := c
	if c.of != nil {
		root = c.of
	}
	root.mu.Lock()
	root.calls = append(root.calls, call)
	root.mu.Unlock()
	for _, n := range r.Notes {
		// How the backend had to make the call: a schema the server
		// refused, answered as json_object and repaired.
		emit(DebugEvent{Stage: stage, Kind: "note", Content: n})
	}
	if r.Cut {
		// The server ignored the limit it was given; the stage goes on
		// as after any reply cut off by length, and the turn says so.
		emit(ErrorEvent{Stage: stage, Message: "the controller went on past its token limit, so Chorus cut its reply there — " +
			"its server may not honour num_predict/max_tokens (check the model's template, or a proxy in between)"})
	}
	emit(DebugEvent{Stage: stage, Kind: "tokens", Content: fmt.Sprintf("prompt %d tokens (%d prefilled, the rest from the server's cache), reply %d tokens, %d ms",
		call.PromptTokens, call.Prefilled, call.Tokens, call.ElapsedMS)})
}

// Calls returns the controller calls recorded so far.
func (c *Transcript) Calls() []ControllerCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

// historyBudget bounds, in bytes, the chat log given to the controller.
const historyBudget = 4000

// With returns the transcript so far followed by tail: the messages of
// one call.
func (c *Transcript) With(tail ...controller.Message) []controller.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append(slices.Clone(c.msgs), tail...)
}

// Add records a stage's exchange, so later calls continue after it (and
// find it in the server's cache).
func (c *Transcript) Add(msgs ...controller.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, msgs...)
}

// StageMessage is a stage's user message: its marker first, then the body.
func StageMessage(mark, body string) controller.Message {
	return controller.Message{Role: "user", Content: mark + "\n" + strings.TrimRight(body, "\n")}
}

// PassedInput is the data the user passed with the request (Turn.Input),
// as the planning and response messages show it after the request: quoted
// as data, so the controller works on it but takes no orders from it.
func PassedInput(input string) string {
	if input == "" {
		return ""
	}
	return "\nInput passed with the request (piped):\n" + QuoteData(input)
}

// QuoteData wraps text from outside — results, file contents — as data the
// head tells the controller never to obey. A "</data>" inside it is
// defused so the data cannot end its own quote.
func QuoteData(s string) string {
	s = strings.ReplaceAll(s, "</data>", "</ data>")
	s = strings.ReplaceAll(s, "<data>", "< data>")
	return "<data>\n" + s + "\n</data>"
}

// historyMessages renders earlier turns as chat messages, newest kept when
// the budget (bytes) runs out. A message that does not fit whole is
// clipped rather than dropped, so a long last answer (its workflow section
// alone can fill the budget) does not cost the follow-up all its context.
func historyMessages(h []Message, budget int) []controller.Message {
	var out []controller.Message
	used := 0
	for i := len(h) - 1; i >= 0; i-- {
		c, files := h[i].Content+PassedInput(h[i].Input), ""
		if len(h[i].Resources) > 0 {
			files = "\n[files: " + strings.Join(h[i].Resources, ", ") + "]"
		}
		if used+len(c)+len(files) > budget {
			left := budget - used - len(files)
			if left < 200 {
				break
			}
			c = Budgeted(c, left-32) // the files stay: later turns refer to them
		}
		c += files
		used += len(c)
		role := h[i].Role
		if role != "user" && role != "assistant" {
			role = "user"
		}
		out = append([]controller.Message{{Role: role, Content: c}}, out...)
	}
	return out
}

// DebugPrompt is a prompt as the debug view shows it: its text, and how
// many images went with it — a vision controller's images are not text, and
// whether a typed or attached picture reached it is what one debugs.
func DebugPrompt(m controller.Message) string {
	if n := len(m.Images); n > 0 {
		return fmt.Sprintf("%s\n(+ %d image(s) sent to the controller with this prompt)", m.Content, n)
	}
	return m.Content
}

// Call fits call's prompt under the controller's budget and
// makes the call.
func Call(ctx context.Context, ctl *controller.Controller, call controller.ChatCall) (controller.Reply, error) {
	call.Messages = Fit(call.Messages, ctl.Options().PromptBytes())
	return ctl.Chat(ctx, call)
}

// Message is one entry of the chat log carried between turns.
type Message struct {
	// Role is "user" or "assistant".
	Role    string `json:"role"`
	Content string `json:"content"`
	// Input is data the user passed with a request (piped stdin): the
	// controller reads it after Content, but unlike Content it grants
	// nothing (Turn.Input).
	Input string `json:"input,omitempty"`
	// Resources are the files attached to or generated in this turn, full
	// paths, so later turns can refer to "the image above".
	Resources []string `json:"resources,omitempty"`
}

// NewTranscript starts a turn's transcript: the head — the system message
// every call of the turn starts with — then the chat log as messages.
func NewTranscript(head string, history []Message) *Transcript {
	msgs := []controller.Message{{Role: "system", Content: head}}
	return &Transcript{msgs: append(msgs, historyMessages(history, historyBudget)...)}
}

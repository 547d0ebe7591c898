package response

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// Responder writes a turn's answer: the response stage, HuggingGPT's
// fourth. It is given what the answer is written from — the request, what
// the user attached and passed with it, their instruction for the answer —
// and the turn's transcript, which every answer call continues. The engine
// decides when it answers (early, or once the tasks have run) and what
// follows it (a correction, a revision's continuation, the workflow).
type Responder struct {
	Controller *controller.Controller
	// Script is the turn's controller conversation; Emit where its events
	// go.
	Script *flow.Transcript
	Emit   flow.Emit
	// Scope is what the turn may read: the attached text files quoted,
	// the images a vision controller sees.
	Scope *scope.Scope
	// ResultBudget bounds, in bytes, the results given to the answer.
	ResultBudget int
	// Request, Input, Attachments and System are the turn's (pipeline.Turn).
	Request     string
	Input       string
	Attachments []string
	System      string
}

// Answer streams the controller's answer to said — the prompt fitted under
// the budget, its tokens out as token events, a leading <think> block
// dropped — and returns the reply and the answer's text as it streamed.
func (r *Responder) Answer(ctx context.Context, said controller.Message) (controller.Reply, string, error) {
	msgs := flow.Fit(r.Script.With(said), r.Controller.Options().PromptBytes())
	r.Emit(flow.DebugEvent{Stage: flow.StageResponse, Kind: "prompt", Content: flow.DebugPrompt(msgs[len(msgs)-1])})
	var answer strings.Builder
	push, flush := streamer(&answer, r.Emit)
	start := time.Now()
	reply, err := flow.Call(ctx, r.Controller, controller.ChatCall{Messages: msgs, NumPredict: r.Controller.Options().AnswerTokens, OnToken: push})
	if err == nil {
		flush()
		r.Script.Record(flow.StageResponse, reply, time.Since(start), r.Emit)
	}
	return reply, answer.String(), err
}

// Unwritten is the answer when the controller could not write one (err)
// although tasks ran: the experts' work is done, so the turn still gives
// it — each text result, quoted (its start, and the file holding the
// rest when it was spilled), then the workflow and the files — even
// without the prose. A caption or a transcript the user waited for is
// never lost to a failed answer call.
func (r *Responder) Unwritten(err error, runs []*flow.TaskRun) string {
	r.Emit(flow.ErrorEvent{Stage: flow.StageResponse, Message: "the controller could not write the answer: " + err.Error()})
	var b strings.Builder
	b.WriteString("_The controller could not write an answer (" + err.Error() + "); here is what ran._")
	for _, run := range runs {
		res := strings.TrimSpace(text.Clean(run.Text))
		if run.Status != flow.StatusOK || res == "" {
			continue
		}
		fmt.Fprintf(&b, "\n\n**Task %d (%s):**\n\n> %s", run.Task.ID, run.Task.Task,
			strings.ReplaceAll(text.Clip(res, unwrittenResult), "\n", "\n> "))
		if run.Spilled != "" {
			fmt.Fprintf(&b, "\n\n_The whole result: `%s`_", run.Spilled)
		}
	}
	r.Emit(flow.TokenEvent{Text: b.String()})
	return b.String()
}

// unwrittenResult bounds each result Unwritten quotes, in characters: a
// result over it was spilled to a file (named), or is cut with an
// ellipsis.
const unwrittenResult = 2000

// streamer forwards answer tokens, dropping a leading <think> block some
// models emit even when asked not to think. The tag may arrive split
// across tokens ("<th", "ink>"), so the answer's first characters are held
// until they cannot be the tag; flush emits what is still held when the
// reply ends.
func streamer(b *strings.Builder, emit flow.Emit) (push func(string), flush func()) {
	var raw strings.Builder
	thinking := false
	push = func(tok string) {
		if b.Len() > 0 && !thinking {
			// The answer is flowing: nothing left to hold back, so
			// tokens go straight out instead of piling up in raw.
			b.WriteString(tok)
			emit(flow.TokenEvent{Text: tok})
			return
		}
		raw.WriteString(tok)
		s := raw.String()
		if b.Len() == 0 && !thinking {
			head := strings.TrimLeft(s, " \t\r\n")
			switch {
			case strings.HasPrefix(head, "<think>"):
				thinking = true
			case head == "" || strings.HasPrefix("<think>", head):
				return // blanks, or perhaps the start of the tag: hold them
			default:
				tok = s // nothing went out yet: all that arrived is the answer's start
			}
		}
		if thinking {
			i := strings.Index(s, "</think>")
			if i < 0 {
				return
			}
			thinking = false
			tok = strings.TrimLeft(s[i+len("</think>"):], "\n ")
			raw.Reset()
			if tok == "" {
				return
			}
		}
		if b.Len() == 0 {
			tok = strings.TrimLeft(tok, "\n")
			if tok == "" {
				return
			}
		}
		raw.Reset()
		b.WriteString(tok)
		emit(flow.TokenEvent{Text: tok})
	}
	flush = func() {
		if b.Len() > 0 || thinking {
			return
		}
		if tok := strings.TrimLeft(raw.String(), "\n"); strings.TrimSpace(tok) != "" {
			b.WriteString(tok)
			emit(flow.TokenEvent{Text: tok})
		}
	}
	return push, flush
}

// Message is the response stage's message: the request, the
// attachments (text files quoted), and every task's arguments, status,
// result, files and error — as data. A vision controller also sees the
// images generated this turn (the attached ones are in the plan message,
// earlier in the conversation).
func (r *Responder) Message(ctx context.Context, p flow.Plan, runs []*flow.TaskRun, rep *flow.Report) controller.Message {
	var b strings.Builder
	b.WriteString(answerInstruction(r.System))
	b.WriteString("Request: " + r.Request)
	b.WriteString(flow.PassedInput(r.Input))
	if len(r.Attachments) > 0 {
		b.WriteString("\nAttached: " + strings.Join(r.Attachments, ", "))
		b.WriteString(attachedTexts(r.Scope, r.Attachments, 8000))
	}
	if len(runs) > 0 {
		results, _ := json.MarshalIndent(flow.Results(runs, r.ResultBudget), "", " ")
		b.WriteString("\nResults of the tasks run for this request:\n" + flow.QuoteData(string(results)))
		b.WriteString(revisionsSaid(rep.Revisions))
		for _, run := range runs {
			if run.Status == flow.StatusRunning {
				// The early answer: the file's path is all the answer
				// needs, and it is fixed already.
				fmt.Fprintf(&b, "\nTask %d (%s) is producing %s: it is still running; give that path, say nothing of its content.", run.Task.ID, run.Task.Task, run.Fixed)
			}
		}
	} else {
		b.WriteString("\nNo task ran: answer directly.")
	}
	if len(p.Notes) > 0 && len(runs) == 0 {
		fmt.Fprintf(&b, "\n(Note for you: %s)", strings.Join(p.Notes, "; "))
	}
	msg := flow.StageMessage(flow.MarkAnswer, b.String())
	if r.Controller.CanSee(ctx) {
		var images [][]byte
		for _, f := range rep.Files {
			if len(images) < 6 && flow.ModalityOf(f) == skills.Image {
				images = append(images, flow.ReadImages(r.Scope, []string{f})...)
			}
		}
		msg.Images = images
	}
	return msg
}

// systemBudget bounds, in bytes, the user's instruction for the answer
// (Turn.System): the rest of the prompt must still fit.
const systemBudget = 4000

// answerInstruction is the user's instruction for the answer as the answer
// message's first line, or "". In the user message, not a system message
// of its own: chat templates (Qwen's among them) drop a system message
// that is not the first, and the first is the head every stage shares in
// the server's cache.
func answerInstruction(system string) string {
	system = strings.TrimSpace(system)
	if system == "" {
		return ""
	}
	system, _ = text.ClipBytes(system, systemBudget)
	return "The user's instruction for this answer (follow it for how you write; it changes nothing of what ran): " + system + "\n"
}

// revisionsSaid tells the answer stage which tasks a revision added after
// which failed (ids only: the errors are in the results, as data), so the
// answer can say what was done instead.
func revisionsSaid(revs []flow.Revision) string {
	var b strings.Builder
	for _, r := range revs {
		failed := make([]string, len(r.After))
		for i, f := range r.After {
			failed[i] = fmt.Sprint(f.ID)
		}
		added := make([]string, len(r.Tasks))
		for i, t := range r.Tasks {
			added[i] = fmt.Sprint(t.ID)
		}
		if len(added) == 0 {
			fmt.Fprintf(&b, "\nAfter task %s failed, no other way to serve the request was found.", strings.Join(failed, ", "))
			continue
		}
		fmt.Fprintf(&b, "\nTask %s failed, so the plan was revised: task %s were added to serve the request another way.",
			strings.Join(failed, ", "), strings.Join(added, ", "))
	}
	return b.String()
}

// attachedTexts quotes attached text files (notes, CSV, JSON) so the
// controller can answer about them, within budget bytes in all.
func attachedTexts(sc *scope.Scope, paths []string, budget int) string {
	var b strings.Builder
	for _, p := range paths {
		content, isFile, err := flow.TextFile(sc, p)
		if err != nil {
			fmt.Fprintf(&b, "\n\n(%s is attached but not quoted: %v)", p, err)
			continue
		}
		if !isFile || budget <= 0 {
			continue
		}
		content = flow.Budgeted(content, budget)
		budget -= len(content)
		fmt.Fprintf(&b, "\nContents of %s:\n%s", p, flow.QuoteData(content))
	}
	return b.String()
}

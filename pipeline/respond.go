package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// respond runs the response stage: it streams the controller's answer and
// appends the workflow section rendered from the execution record, so the
// explanation can only name models that actually ran. After an early
// answer (runs holds stand-ins for tasks still producing their files) it
// waits for those tasks, a line corrects the answer for each that did not
// produce the file it named, and a task that failed for good is revised:
// the answer goes on with what the revision made (goOn). One answer event
// ends it, holding the whole text.
func (d *dispatcher) respond(p Plan, runs []*taskRun, rep *Report) (string, error) {
	e, ctx, emit := d.e, d.ctx, d.emit
	said := e.answerMessage(ctx, d.t, p, runs, rep)
	msgs := fitPrompt(d.script.with(said), e.ctl.Options().PromptBytes())
	emit(DebugEvent{Stage: StageResponse, Kind: "prompt", Content: debugPrompt(msgs[len(msgs)-1])})
	var answer strings.Builder
	push, flush := streamer(&answer, emit)
	start := time.Now()
	reply, err := e.callController(ctx, controller.ChatCall{Messages: msgs, NumPredict: e.ctl.Options().AnswerTokens, OnToken: push})
	if err == nil {
		flush()
		d.script.record(StageResponse, reply, time.Since(start), emit)
	}
	correction := d.finish(rep)
	if err != nil {
		if ctx.Err() != nil || len(runs) == 0 {
			if answer.Len() > 0 && correction != "" {
				// What streamed may name a file the cancel stopped.
				emit(TokenEvent{Text: "\n\n" + correction})
			}
			return "", err
		}
		// The experts' work is done and their files exist: report them even
		// though the controller could not write the prose.
		emit(ErrorEvent{Stage: StageResponse, Message: "the controller could not write the answer: " + err.Error()})
		answer.Reset()
		answer.WriteString("_The controller could not write an answer (" + err.Error() + "); here is what ran._")
		emit(TokenEvent{Text: answer.String()})
	}
	emit(DebugEvent{Stage: StageResponse, Kind: "reply", Content: reply.Content})
	text := strings.TrimSpace(answer.String())
	if correction != "" {
		sep := "\n\n"
		emit(TokenEvent{Text: sep + correction})
		text += sep + correction
	}
	if d.answering && ctx.Err() != nil {
		// Stopped while the tasks the answer named still ran: the
		// correction says what they did not make, and the turn ends.
		return "", fmt.Errorf("%w: %w", ErrCancelled, ctx.Err())
	}
	if err == nil {
		more, err := d.goOn(p, said, reply, rep)
		if err != nil {
			return "", err
		}
		text += more
	}
	if wf := workflowSection(rep, p); wf != "" {
		sep := "\n\n"
		emit(TokenEvent{Text: sep + wf})
		text += sep + wf
	}
	emit(AnswerEvent{Text: text, Tokens: reply.EvalCount, TokensPerSecond: reply.TokensPerSecond()})
	return text, nil
}

// streamer forwards answer tokens, dropping a leading <think> block some
// models emit even when asked not to think. The tag may arrive split
// across tokens ("<th", "ink>"), so the answer's first characters are held
// until they cannot be the tag; flush emits what is still held when the
// reply ends.
func streamer(b *strings.Builder, emit Emit) (push func(string), flush func()) {
	var raw strings.Builder
	thinking := false
	push = func(tok string) {
		if b.Len() > 0 && !thinking {
			// The answer is flowing: nothing left to hold back, so
			// tokens go straight out instead of piling up in raw.
			b.WriteString(tok)
			emit(TokenEvent{Text: tok})
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
		emit(TokenEvent{Text: tok})
	}
	flush = func() {
		if b.Len() > 0 || thinking {
			return
		}
		if tok := strings.TrimLeft(raw.String(), "\n"); strings.TrimSpace(tok) != "" {
			b.WriteString(tok)
			emit(TokenEvent{Text: tok})
		}
	}
	return push, flush
}

// answerMessage is the response stage's message: the request, the
// attachments (text files quoted), and every task's arguments, status,
// result, files and error — as data. A vision controller also sees the
// images generated this turn (the attached ones are in the plan message,
// earlier in the conversation).
func (e *Engine) answerMessage(ctx context.Context, t Turn, p Plan, runs []*taskRun, rep *Report) controller.Message {
	var b strings.Builder
	b.WriteString(answerInstruction(t.System))
	b.WriteString("Request: " + t.Request)
	b.WriteString(passedInput(t.Input))
	if len(t.Attachments) > 0 {
		b.WriteString("\nAttached: " + strings.Join(t.Attachments, ", "))
		b.WriteString(attachedTexts(e.access(t), t.Attachments, 8000))
	}
	if len(runs) > 0 {
		results, _ := json.MarshalIndent(resultsForPrompt(runs, e.opts.ResultBudget), "", " ")
		b.WriteString("\nResults of the tasks run for this request:\n" + quoteData(string(results)))
		b.WriteString(revisionsSaid(rep.Revisions))
		for _, r := range runs {
			if r.status == statusRunning {
				// The early answer (early.go): the file's path is all
				// the answer needs, and it is fixed already.
				fmt.Fprintf(&b, "\nTask %d (%s) is producing %s: it is still running; give that path, say nothing of its content.", r.task.ID, r.task.Task, r.fixed)
			}
		}
	} else {
		b.WriteString("\nNo task ran: answer directly.")
	}
	if len(p.Notes) > 0 && len(runs) == 0 {
		fmt.Fprintf(&b, "\n(Note for you: %s)", strings.Join(p.Notes, "; "))
	}
	msg := stageMessage(markAnswer, b.String())
	if e.ctl.CanSee(ctx) {
		var images [][]byte
		for _, f := range rep.Files {
			if len(images) < 6 && ModalityOf(f) == skills.Image {
				images = append(images, readImages(e.access(t), []string{f})...)
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
func revisionsSaid(revs []Revision) string {
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
		content, isFile, err := textFileContent(sc, p)
		if err != nil {
			fmt.Fprintf(&b, "\n\n(%s is attached but not quoted: %v)", p, err)
			continue
		}
		if !isFile || budget <= 0 {
			continue
		}
		content = budgeted(content, budget)
		budget -= len(content)
		fmt.Fprintf(&b, "\nContents of %s:\n%s", p, quoteData(content))
	}
	return b.String()
}

// historyMessages renders earlier turns as chat messages, newest kept when
// the budget (bytes) runs out. A message that does not fit whole is
// clipped rather than dropped, so a long last answer (its workflow section
// alone can fill the budget) does not cost the follow-up all its context.
func historyMessages(h []Message, budget int) []controller.Message {
	var out []controller.Message
	used := 0
	for i := len(h) - 1; i >= 0; i-- {
		c, files := h[i].Content+passedInput(h[i].Input), ""
		if len(h[i].Resources) > 0 {
			files = "\n[files: " + strings.Join(h[i].Resources, ", ") + "]"
		}
		if used+len(c)+len(files) > budget {
			left := budget - used - len(files)
			if left < 200 {
				break
			}
			c = budgeted(c, left-32) // the files stay: later turns refer to them
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

type promptResult struct {
	ID     int               `json:"id"`
	Task   string            `json:"task"`
	Args   map[string]string `json:"args,omitempty"`
	Status string            `json:"status"`
	Result string            `json:"result,omitempty"`
	Data   string            `json:"data,omitempty"`
	Files  []string          `json:"files,omitempty"`
	Error  string            `json:"error,omitempty"`
}

// resultsForPrompt trims results to fit budget bytes, sharing it evenly.
func resultsForPrompt(runs []*taskRun, budget int) []promptResult {
	per := budget / max(1, len(runs))
	out := make([]promptResult, 0, len(runs))
	for _, r := range runs {
		pr := promptResult{ID: r.task.ID, Task: r.task.Task, Status: r.status, Files: r.files, Error: budgeted(r.err, per/4)}
		pr.Args = map[string]string{}
		args := r.args
		if args == nil {
			args = r.task.Args
		}
		for k, v := range args {
			pr.Args[k] = budgeted(v, per/6)
		}
		pr.Result = budgeted(r.text, per/2)
		if len(r.data) > 0 && len(r.text) < per/4 {
			pr.Data = budgeted(string(r.data), per/4)
		}
		out = append(out, pr)
	}
	return out
}

// budgetFloor is the least of a part budgeted keeps.
const budgetFloor = 16

// budgeted cuts s to a prompt budget of n bytes (budgetFloor at least),
// saying how much was left out so the controller does not take a part for
// the whole.
func budgeted(s string, n int) string {
	out, cut := text.ClipBytes(s, max(n, budgetFloor))
	if cut > 0 {
		out += fmt.Sprintf(" [%d more bytes]", cut)
	}
	return out
}

// workflowSection renders the execution record as Markdown. It is generated,
// never written by the LLM, so it names exactly what ran.
func workflowSection(rep *Report, p Plan) string {
	if len(rep.Tasks) == 0 && len(p.Notes) == 0 {
		return ""
	}
	var b strings.Builder
	// A revision's line comes before the first task it added, or after
	// the tasks when it added none.
	revisedAt := map[int][]Revision{}
	for _, r := range rep.Revisions {
		at := -1
		if len(r.Tasks) > 0 {
			at = r.Tasks[0].ID
		}
		revisedAt[at] = append(revisedAt[at], r)
	}
	if len(rep.Tasks) > 0 {
		b.WriteString("**Workflow**\n\n")
		for _, t := range rep.Tasks {
			for _, r := range revisedAt[t.ID] {
				fmt.Fprintf(&b, "\n_%s._\n\n", upperFirst(text.OneLine(r.String(), 400)))
			}
			fmt.Fprintf(&b, "%d. **%s**", t.ID, t.Task)
			if len(t.Dep) > 0 {
				deps := make([]string, len(t.Dep))
				for i, d := range t.Dep {
					deps[i] = fmt.Sprint(d)
				}
				fmt.Fprintf(&b, " (after %s)", strings.Join(deps, ", "))
			}
			switch {
			case t.Status == StatusOK:
				fmt.Fprintf(&b, " — `%s` on %s, %s ✓", t.Model, Where(t.Endpoint, t.Provider), humanMS(t.ElapsedMS))
			case t.Cancelled:
				fmt.Fprintf(&b, " — cancelled")
			case t.Skipped:
				fmt.Fprintf(&b, " — not run")
			default:
				fmt.Fprintf(&b, " — failed after %s", humanMS(t.ElapsedMS))
			}
			b.WriteString("\n")
			// After a fallback the selection's reason is about the
			// model chosen first, not the one that ran: say whose it is.
			note := ""
			if t.Status == StatusOK {
				note = fallbackNote(t.Attempts, func(a Attempt) string {
					if a.Endpoint == EndpointController {
						return "the controller"
					}
					return "`" + a.Model + "`"
				})
			}
			if note != "" {
				fmt.Fprintf(&b, "   - %s\n", text.OneLine(note, 400))
			}
			switch {
			case t.Decided == "" || t.Status != StatusOK:
			case note != "" && t.Attempts[0].Model != t.Model:
				fmt.Fprintf(&b, "   - `%s` was selected (%s): %s\n", t.Attempts[0].Model, t.Decided, text.OneLine(t.Reason, 200))
			default:
				fmt.Fprintf(&b, "   - selected (%s): %s\n", t.Decided, text.OneLine(t.Reason, 200))
			}
			if t.Unmet != "" {
				fmt.Fprintf(&b, "   - constraint not applied: %s\n", text.OneLine(t.Unmet, 200))
			}
			if t.Error != "" && !t.Cancelled {
				fmt.Fprintf(&b, "   - %s\n", text.OneLine(t.Error, 400))
			}
		}
	}
	for _, r := range revisedAt[-1] {
		fmt.Fprintf(&b, "\n_%s._\n", upperFirst(text.OneLine(r.String(), 400)))
	}
	if len(rep.Files) > 0 {
		b.WriteString("\n**Files**\n\n")
		for _, f := range rep.Files {
			fmt.Fprintf(&b, "- `%s`\n", f)
		}
	}
	if !rep.Constraints.IsZero() {
		fmt.Fprintf(&b, "\n_Constraints: %s_\n", rep.Constraints.String())
	}
	if len(p.Notes) > 0 {
		b.WriteString("\n**Plan repairs**\n\n")
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func humanMS(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// upperFirst capitalises the first letter of s, for a sentence.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

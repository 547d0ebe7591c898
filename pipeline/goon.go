package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// The early answer (early.go) and the revision (revise.go) compose: when a
// task the early answer named fails for good, the answer is already on the
// user's screen, followed by its correction line. The plan is still
// revised — the revision call continues the conversation after that answer
// — its tasks run to their end, and one more answer call goes on from
// where the answer stopped, saying what was made instead ("The video model
// is down, so here is a still image instead: …"). Its tokens follow the
// answer's; the one answer event that ends the turn holds the whole text,
// and the report keeps the revision and its tasks.

// goOn revises the plan after an early answer when a task it named failed
// for good, runs the revision's tasks and returns what the answer goes on
// with ("" when no revision is due, or it added nothing). said and reply
// are the early answer's call, which the revision continues. The error is
// the turn's cancellation.
func (d *dispatcher) goOn(p Plan, said controller.Message, reply controller.Reply, rep *Report) (string, error) {
	d.mu.Lock()
	due := d.answering && d.waited && d.revisionDue()
	runs := slices.Clone(d.current)
	d.mu.Unlock()
	if !due {
		return "", nil
	}
	d.script.add(said, controller.Message{Role: "assistant", Content: reply.Content})
	before := len(runs)
	runs, revs, err := d.revise(p, runs)
	rep.Revisions = append(rep.Revisions, revs...)
	rep.Tasks, rep.Files = reportTasks(runs, d.e.opts.ResultCap), reportFiles(runs)
	if err != nil || d.ctx.Err() != nil {
		return "", fmt.Errorf("%w: %w", ErrCancelled, d.ctx.Err())
	}
	if len(runs) == before {
		// The controller found no other way: the correction said what
		// was not made, and the workflow says the revision found none.
		return "", nil
	}
	d.emit(StageEvent{Stage: StageResponse})
	return d.continuation(runs[before:], revs, rep)
}

// continuation is the answer call that goes on after an early answer with
// what the revision's tasks (added) made. Its tokens follow the answer's
// after a blank line; what it returns starts with that line too.
func (d *dispatcher) continuation(added []*taskRun, revs []Revision, rep *Report) (string, error) {
	e, ctx, emit := d.e, d.ctx, d.emit
	msgs := fitPrompt(d.script.with(e.continueMessage(ctx, d.t, added, revs, rep)), e.ctl.Options().PromptBytes())
	emit(DebugEvent{Stage: StageResponse, Kind: "prompt", Content: debugPrompt(msgs[len(msgs)-1])})
	var more strings.Builder
	began := false
	push, flush := streamer(&more, func(ev Event) {
		if !began {
			began = true
			emit(TokenEvent{Text: "\n\n"})
		}
		emit(ev)
	})
	start := time.Now()
	reply, err := e.callController(ctx, controller.ChatCall{Messages: msgs, NumPredict: e.ctl.Options().AnswerTokens, OnToken: push})
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%w: %w", ErrCancelled, ctx.Err())
		}
		emit(ErrorEvent{Stage: StageResponse, Message: "the controller could not go on with the answer: " + err.Error()})
		line := "\n\n_The controller could not go on with the answer (" + text.OneLine(err.Error(), 200) + "); the workflow below says what the revision made._"
		emit(TokenEvent{Text: line})
		if began {
			return "\n\n" + more.String() + line, nil
		}
		return line, nil
	}
	flush()
	d.script.record(StageResponse, reply, time.Since(start), emit)
	emit(DebugEvent{Stage: StageResponse, Kind: "reply", Content: reply.Content})
	if !began {
		return "", nil
	}
	return "\n\n" + strings.TrimRight(more.String(), " \t\r\n"), nil
}

// continueMessage is the continuation's message: the request, which files
// the answer named that were not made, what the revision added and the
// results of its tasks — as data — and that the reply goes on from the
// answer rather than repeat it.
func (e *Engine) continueMessage(ctx context.Context, t Turn, added []*taskRun, revs []Revision, rep *Report) controller.Message {
	var b strings.Builder
	b.WriteString(answerInstruction(t.System))
	b.WriteString("Request: " + t.Request)
	for _, tr := range rep.Tasks {
		if tr.Correction != "" {
			fmt.Fprintf(&b, "\nYour answer above named %s, but task %d (%s) did not produce it; the user was told so.", tr.Early, tr.ID, tr.Task)
		}
	}
	b.WriteString(revisionsSaid(revs))
	results, _ := json.MarshalIndent(resultsForPrompt(added, e.opts.ResultBudget), "", " ")
	b.WriteString("\nResults of the tasks the revision added:\n" + quoteData(string(results)))
	b.WriteString("\nThe user has read your answer above: go on from it, never repeat it. In one or two sentences say what was made instead" +
		` and give the full paths of its files (e.g. "The video model is down, so here is a still image instead: PATH");` +
		" if those tasks failed too, say so plainly.")
	msg := stageMessage(markAnswer, b.String())
	if e.ctl.CanSee(ctx) {
		var images [][]byte
		for _, r := range added {
			for _, f := range r.files {
				if len(images) < 6 && ModalityOf(f) == skills.Image {
					images = append(images, readImages(e.access(t), []string{f})...)
				}
			}
		}
		msg.Images = images
	}
	return msg
}

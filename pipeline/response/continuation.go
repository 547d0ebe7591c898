package response

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// Continue is the answer call that goes on after an early answer with
// what the revision's tasks (added) made. Its tokens follow the answer's
// after a blank line; what it returns starts with that line too.
func (r *Responder) Continue(ctx context.Context, added []*flow.TaskRun, revs []flow.Revision, rep *flow.Report) (string, error) {
	emit := r.Emit
	msgs := flow.Fit(r.Script.With(r.continueMessage(ctx, added, revs, rep)), r.Controller.Options().PromptBytes())
	emit(flow.DebugEvent{Stage: flow.StageResponse, Kind: "prompt", Content: flow.DebugPrompt(msgs[len(msgs)-1])})
	var more strings.Builder
	began := false
	push, flush := streamer(&more, func(ev flow.Event) {
		if !began {
			began = true
			emit(flow.TokenEvent{Text: "\n\n"})
		}
		emit(ev)
	})
	start := time.Now()
	reply, err := flow.Call(ctx, r.Controller, controller.ChatCall{Messages: msgs, NumPredict: r.Controller.Options().AnswerTokens, OnToken: push})
	if err != nil {
		if ctx.Err() != nil {
			return "", flow.Cancelled(ctx)
		}
		emit(flow.ErrorEvent{Stage: flow.StageResponse, Message: "the controller could not go on with the answer: " + err.Error()})
		line := "\n\n_The controller could not go on with the answer (" + text.OneLine(err.Error(), 200) + "); the workflow below says what the revision made._"
		emit(flow.TokenEvent{Text: line})
		if began {
			return "\n\n" + more.String() + line, nil
		}
		return line, nil
	}
	flush()
	r.Script.Record(flow.StageResponse, reply, time.Since(start), emit)
	emit(flow.DebugEvent{Stage: flow.StageResponse, Kind: "reply", Content: reply.Content})
	if !began {
		return "", nil
	}
	return "\n\n" + strings.TrimRight(more.String(), " \t\r\n"), nil
}

// continueMessage is the continuation's message: the request, which files
// the answer named that were not made, what the revision added and the
// results of its tasks — as data — and that the reply goes on from the
// answer rather than repeat it.
func (r *Responder) continueMessage(ctx context.Context, added []*flow.TaskRun, revs []flow.Revision, rep *flow.Report) controller.Message {
	var b strings.Builder
	b.WriteString(answerInstruction(r.System))
	b.WriteString("Request: " + r.Request)
	for _, tr := range rep.Tasks {
		if tr.Correction != "" {
			fmt.Fprintf(&b, "\nYour answer above named %s, but task %d (%s) did not produce it; the user was told so.", tr.Early, tr.ID, tr.Task)
		}
	}
	b.WriteString(revisionsSaid(revs))
	results, _ := json.MarshalIndent(flow.Results(added, r.ResultBudget), "", " ")
	b.WriteString("\nResults of the tasks the revision added:\n" + flow.QuoteData(string(results)))
	b.WriteString("\nThe user has read your answer above: go on from it, never repeat it. In one or two sentences say what was made instead" +
		` and give the full paths of its files (e.g. "The video model is down, so here is a still image instead: PATH");` +
		" if those tasks failed too, say so plainly.")
	msg := flow.StageMessage(flow.MarkAnswer, b.String())
	if r.Controller.CanSee(ctx) {
		var images [][]byte
		for _, run := range added {
			for _, f := range run.Files {
				if len(images) < 6 && flow.ModalityOf(f) == skills.Image {
					images = append(images, flow.ReadImages(r.Scope, []string{f})...)
				}
			}
		}
		msg.Images = images
	}
	return msg
}

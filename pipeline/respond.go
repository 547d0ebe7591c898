package pipeline

import (
	"slices"
	"strings"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/response"
)

// respond runs the response stage: it streams the controller's answer and
// appends the workflow section rendered from the execution record, so the
// explanation can only name models that actually ran. After an early
// answer (runs holds stand-ins for tasks still producing their files) it
// waits for those tasks, a line corrects the answer for each that did not
// produce the file it named, and a task that failed for good is revised:
// the answer goes on with what the revision made (goOn). One answer event
// ends it, holding the whole text.
func (tr *turnRun) respond(d *dispatcher, p flow.Plan, runs []*taskRun, rep *flow.Report) (string, error) {
	ctx, emit, resp := tr.ctx, tr.emit, tr.resp
	said := resp.Message(ctx, p, records(runs), rep)
	reply, answer, err := resp.Answer(ctx, said)
	correction := tr.finish(d, rep)
	if err != nil {
		if ctx.Err() != nil || len(runs) == 0 {
			if answer != "" && correction != "" {
				// What streamed may name a file the cancel stopped.
				emit(flow.TokenEvent{Text: "\n\n" + correction})
			}
			return "", err
		}
		answer = resp.Unwritten(err, records(runs))
	}
	emit(flow.DebugEvent{Stage: flow.StageResponse, Kind: "reply", Content: reply.Content})
	text := strings.TrimSpace(answer)
	if correction != "" {
		sep := "\n\n"
		emit(flow.TokenEvent{Text: sep + correction})
		text += sep + correction
	}
	if d.answeringEarly() && ctx.Err() != nil {
		// Stopped while the tasks the answer named still ran: the
		// correction says what they did not make, and the turn ends.
		return "", flow.Cancelled(ctx)
	}
	if err == nil {
		more, err := tr.goOn(d, p, said, reply, rep)
		if err != nil {
			return "", err
		}
		text += more
	}
	if wf := response.Workflow(rep, p); wf != "" {
		sep := "\n\n"
		emit(flow.TokenEvent{Text: sep + wf})
		text += sep + wf
	}
	emit(flow.AnswerEvent{Text: text, Tokens: reply.EvalCount, TokensPerSecond: reply.TokensPerSecond()})
	return text, nil
}

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
func (tr *turnRun) goOn(d *dispatcher, p flow.Plan, said controller.Message, reply controller.Reply, rep *flow.Report) (string, error) {
	runs, due := d.revisionAfterAnswer()
	if !due {
		return "", nil
	}
	tr.script.Add(said, controller.Message{Role: "assistant", Content: reply.Content})
	before := len(runs)
	runs, revs, err := tr.revise(d, p, runs)
	rep.Revisions = append(rep.Revisions, revs...)
	tr.report(rep, runs)
	if err != nil || tr.ctx.Err() != nil {
		return "", flow.Cancelled(tr.ctx)
	}
	if len(runs) == before {
		// The controller found no other way: the correction said what
		// was not made, and the workflow says the revision found none.
		return "", nil
	}
	tr.emit(flow.StageEvent{Stage: flow.StageResponse})
	return tr.resp.Continue(tr.ctx, records(runs[before:]), revs, rep)
}

// revisionAfterAnswer returns every run of the turn, and whether a
// revision is due after an early answer: a task it named failed for good.
func (d *dispatcher) revisionAfterAnswer() ([]*taskRun, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.current), d.answering && d.waited && d.revisionDue()
}

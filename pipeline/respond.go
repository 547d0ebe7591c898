package pipeline

import (
	"strings"

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
func (d *dispatcher) respond(p flow.Plan, runs []*taskRun, rep *flow.Report) (string, error) {
	ctx, emit, resp := d.ctx, d.emit, d.resp
	said := resp.Message(ctx, p, records(runs), rep)
	reply, answer, err := resp.Answer(ctx, said)
	correction := d.finish(rep)
	if err != nil {
		if ctx.Err() != nil || len(runs) == 0 {
			if answer != "" && correction != "" {
				// What streamed may name a file the cancel stopped.
				emit(flow.TokenEvent{Text: "\n\n" + correction})
			}
			return "", err
		}
		answer = resp.Unwritten(err)
	}
	emit(flow.DebugEvent{Stage: flow.StageResponse, Kind: "reply", Content: reply.Content})
	text := strings.TrimSpace(answer)
	if correction != "" {
		sep := "\n\n"
		emit(flow.TokenEvent{Text: sep + correction})
		text += sep + correction
	}
	if d.answering && ctx.Err() != nil {
		// Stopped while the tasks the answer named still ran: the
		// correction says what they did not make, and the turn ends.
		return "", flow.Cancelled(ctx)
	}
	if err == nil {
		more, err := d.goOn(p, said, reply, rep)
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

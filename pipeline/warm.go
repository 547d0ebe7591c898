package pipeline

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/planning"
)

// Warm sends the stable start of the controller conversation — the head,
// then the chat log, then the planning stage's marker — in a call that
// prefills it and generates one token, so that the server's prompt cache
// holds it before the user's request arrives: the request's planning call
// then prefills only its own tail. On a laptop CPU the head is 15–30
// seconds of prefill the user would otherwise wait through on the first
// turn; the call also loads the model. It carries the plan's schema, as
// every structured controller call does.
//
// Front ends call it when a chat opens and after the controller model
// changes, in the background, and cancel it when a turn starts (ctx):
// a turn is never queued behind it (conversation.Warmer does this).
//
// A server with a second slot (controller.max_concurrent ≥ 2) gets the
// warm-up twice at once, one per slot — each slot keeps its own cache —
// so a pick asked there while the plan streams (earlypick.go) prefills
// only its own tail too.
func (e *Engine) Warm(ctx context.Context, history []flow.Message) (controller.Reply, error) {
	start := time.Now()
	script := e.newTranscript(ctx, history)
	msgs := script.With(flow.StageMessage(flow.MarkPlan, ""))
	call := controller.ChatCall{Messages: msgs, Format: planning.Schema(e.cat), NumPredict: 1}
	var second sync.WaitGroup
	if e.ctl.Options().MaxConcurrent >= 2 {
		second.Add(1)
		go func() {
			defer second.Done()
			_, _ = flow.Call(ctx, e.ctl, call)
		}()
	}
	reply, err := flow.Call(ctx, e.ctl, call)
	second.Wait()
	log := e.opts.Logger
	if err != nil {
		log.LogAttrs(ctx, slog.LevelDebug, "prompt head not warmed", slog.String("err", err.Error()), slog.Duration("elapsed", time.Since(start)))
		return reply, err
	}
	log.LogAttrs(ctx, slog.LevelInfo, "prompt head warmed", slog.Int("prompt_tokens", reply.PromptEvalCount),
		slog.Int("prefilled", reply.Prefilled), slog.Duration("prompt_eval", reply.PromptEvalDuration), slog.Duration("elapsed", time.Since(start)))
	return reply, nil
}

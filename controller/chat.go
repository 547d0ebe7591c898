package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/chorusai/chorus/text"
)

// Message is one message of a controller conversation.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role    string
	Content string
	// Images are raw image files (PNG, JPEG, …) for a vision model.
	Images [][]byte
}

// ChatCall is one controller request.
type ChatCall struct {
	Messages []Message
	// Format is a JSON schema the reply must follow (nil: free text).
	Format json.RawMessage
	// NumPredict bounds the reply length; 0 leaves it to the server.
	NumPredict int
	// OnToken, when set, receives the reply as it streams.
	OnToken func(string)
}

// Reply is a finished controller reply.
type Reply struct {
	Content string
	// DoneReason is "stop", "length" (cut off by NumPredict), or "load".
	DoneReason string
	// PromptEvalCount is the prompt's length in tokens as the server
	// reports it (Ollama counts the whole prompt, cached part included);
	// 0 when it does not.
	PromptEvalCount int
	// PromptEvalDuration is how long the server spent on the prompt: short
	// when most of it came from the cache.
	PromptEvalDuration time.Duration
	// Prefilled estimates the prompt tokens the server really evaluated:
	// the part of the prompt after what it shares with the previous call
	// to the same model, which Ollama's prefix cache keeps. Ollama does not
	// report it, so it is derived from the prompts Chorus sent.
	Prefilled    int
	EvalCount    int
	EvalDuration time.Duration
	// Notes say how the call had to be made (a fallback the backend took),
	// for --debug.
	Notes []string
	// Cut is set when the server streamed past NumPredict and the
	// Controller stopped reading (limits.go): DoneReason is then "length".
	Cut bool
}

// Truncated reports whether the reply hit the token limit.
func (r Reply) Truncated() bool { return r.DoneReason == "length" }

// TokensPerSecond is the generation speed the server measured.
func (r Reply) TokensPerSecond() float64 {
	if r.EvalDuration <= 0 {
		return 0
	}
	return float64(r.EvalCount) / r.EvalDuration.Seconds()
}

// Chat sends one request and collects the streamed reply.
func (c *Controller) Chat(parent context.Context, call ChatCall) (Reply, error) {
	start := time.Now()
	reply, err := c.chat(parent, call)
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
	}
	c.log.LogAttrs(parent, level, "controller chat", slog.String("model", c.model), slog.Int("messages", len(call.Messages)),
		slog.Bool("schema", len(call.Format) > 0), slog.Bool("stream", call.OnToken != nil),
		slog.Duration("elapsed", time.Since(start)), slog.Int("prompt_tokens", reply.PromptEvalCount), slog.Int("prefilled", reply.Prefilled),
		slog.Int("tokens", reply.EvalCount), slog.String("done_reason", reply.DoneReason), notesAttr(reply.Notes), errAttr(err))
	return reply, err
}

func (c *Controller) chat(parent context.Context, call ChatCall) (Reply, error) {
	if err := c.checkPrompt(call.Messages); err != nil {
		return Reply{}, err
	}
	// The wait for a slot is not the call's: controller.timeout starts
	// when the server takes it.
	release, err := c.queue.acquire(parent)
	if err != nil {
		return Reply{}, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(parent, c.opts.Timeout)
	defer cancel()
	// cut stops a reply that runs past its bound (limits.go) without
	// counting as a timeout or a cancellation.
	stream, cut := context.WithCancel(ctx)
	defer cut()
	req := ChatRequest{Model: c.model, Messages: call.Messages, Format: call.Format, Temperature: c.opts.Temperature,
		NumCtx: c.opts.NumCtx, NumPredict: call.NumPredict, KeepAlive: max(c.opts.KeepAlive, 0)}
	shared := c.prompts.remember(c.model, call.Messages)
	// Thinking models answer faster and keep JSON clean without it; only
	// send the flag to models that know it.
	req.NoThink = c.thinks(ctx)
	var (
		b     strings.Builder
		reply Reply
		done  bool
		over  bool
		// What the model writes is cleaned before anyone sees, parses,
		// saves or applies it: a small or broken model leaks control
		// characters and its template's special tokens (<|im_start|>)
		// into plans, picks and answers alike.
		gen  text.GeneratedStream
		emit = func(s string) {
			if s != "" {
				b.WriteString(s)
				if call.OnToken != nil {
					call.OnToken(s)
				}
			}
		}
	)
	bound := c.newReplyBound(call)
	err = c.backend.Chat(stream, req, func(r ChatChunk) {
		if over {
			return // what the server sends after the cut is not read
		}
		if !r.Done && r.Note == "" {
			r.Content, over = bound.add(r)
		}
		if r.Content != "" {
			emit(gen.Next(r.Content))
		}
		if over {
			cut()
			return
		}
		if r.Note != "" {
			reply.Notes = append(reply.Notes, r.Note)
		}
		if r.Done {
			done = true
			reply.DoneReason = r.DoneReason
			reply.PromptEvalCount, reply.PromptEvalDuration = r.PromptEvalCount, r.PromptEvalDuration
			reply.Prefilled = r.PromptEvalCount - int(float64(r.PromptEvalCount)*shared)
			if r.CacheReported {
				// The server says what its cache held: no estimate needed.
				reply.Prefilled = max(0, r.PromptEvalCount-r.CachedTokens)
			}
			reply.EvalCount, reply.EvalDuration = r.EvalCount, r.EvalDuration
		}
	})
	emit(gen.Flush())
	reply.Content = b.String()
	// The client drops read errors at the end of a stream, so a cancelled
	// context or a dropped connection shows up only as a missing final chunk.
	if parent.Err() != nil {
		return reply, parent.Err()
	}
	if ctx.Err() != nil {
		return reply, &Error{Host: c.host, Model: c.model, Err: ctx.Err(), hints: c.hints,
			Detail: fmt.Sprintf("no complete reply within %s — raise controller.timeout or use a faster model", c.opts.Timeout)}
	}
	if over {
		// As if the server had stopped at the limit: the stages treat it
		// as any reply cut off by length.
		reply.DoneReason, reply.Cut, reply.EvalCount = "length", true, bound.pieces
		reply.Notes = append(reply.Notes, cutNote(bound.limit))
		return reply, nil
	}
	if err != nil {
		return reply, c.wrap(err)
	}
	if !done {
		return reply, c.newError(errors.New("stream ended early"), "the server closed the reply stream before it finished")
	}
	return reply, nil
}

// notesAttr is the notes of a log record; empty when there are none.
func notesAttr(notes []string) slog.Attr {
	if len(notes) == 0 {
		return slog.Attr{}
	}
	return slog.String("note", strings.Join(notes, "; "))
}

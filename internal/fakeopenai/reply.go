package fakeopenai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// answer is one chat reply on its way out: the chunks the scripted reply
// became, the finish they end with, and how the engine (and its quirks)
// sends them.
type answer struct {
	req      *ChatRequest
	reply    ChatReply
	quirks   Quirks
	id       string
	chunks   []string
	finish   string
	prompt   int
	perToken time.Duration
}

// usage is the reply's usage object after n generated tokens.
func (a *answer) usage(n int) map[string]any {
	return map[string]any{"prompt_tokens": a.prompt, "completion_tokens": n, "total_tokens": a.prompt + n,
		"prompt_tokens_details": map[string]any{"cached_tokens": a.req.CachedTokens}}
}

// contentType is what a 200 reply is labelled: the engine's type unless a
// quirk mislabels it.
func (a *answer) contentType(engine string) string {
	if a.quirks.ContentType != "" {
		return a.quirks.ContentType
	}
	return engine
}

// whole answers with one chat.completion object, after the time its
// tokens take.
func (s *Controller) whole(ctx context.Context, w http.ResponseWriter, a *answer) {
	for range a.chunks {
		if !sleepCtx(ctx, a.perToken) {
			return
		}
	}
	if a.reply.Stall {
		<-ctx.Done()
		return
	}
	w.Header().Set("Content-Type", a.contentType("application/json"))
	_ = json.NewEncoder(w).Encode(map[string]any{"id": a.id, "object": "chat.completion", "created": time.Now().Unix(), "model": a.req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": a.finish, "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": strings.Join(a.chunks, "")}}},
		"usage": a.usage(len(a.chunks))})
}

// stream answers with server-sent events: a role chunk, the content
// chunks, the finish chunk and the usage where the engine puts it, then
// "data: [DONE]".
func (s *Controller) stream(ctx context.Context, w http.ResponseWriter, a *answer) {
	w.Header().Set("Content-Type", a.contentType("text/event-stream"))
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	write := func(text string) bool {
		if _, err := io.WriteString(w, text); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if a.quirks.KeepAlives && !write(": keep-alive\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n") {
			return false
		}
		return write(fmt.Sprintf("data: %s\n\n", b))
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": a.req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	if a.quirks.KeepAlives && !write(": OPENROUTER PROCESSING\n\n") {
		return
	}
	first := map[string]any{"role": "assistant", "content": ""}
	if s.engine == LlamaServer {
		first["content"] = nil
	}
	if !send(chunk(first, nil)) {
		return
	}
	n := len(a.chunks)
	for _, c := range a.chunks {
		if !sleepCtx(ctx, a.perToken) || !send(chunk(map[string]any{"content": c}, nil)) {
			return
		}
	}
	if a.reply.Raw != nil {
		for raw := range a.reply.Raw {
			if !write(raw) {
				return
			}
		}
	}
	if a.reply.Stream != nil {
		n = 0
		field := "content"
		if a.reply.StreamReasoning {
			field = "reasoning_content"
		}
		for c := range a.reply.Stream {
			n++
			if !send(chunk(map[string]any{field: c}, nil)) {
				return
			}
		}
		if a.reply.StreamEnd != nil {
			if f, e := a.reply.StreamEnd(); e != "" {
				a.reply.StreamError = e
			} else if f != "" {
				a.finish = f
			}
		}
	}
	if a.reply.Stall {
		<-ctx.Done()
		return
	}
	if a.reply.StreamError != "" {
		send(s.errorBody(http.StatusInternalServerError, a.reply.StreamError))
		write("data: [DONE]\n\n")
		return
	}
	last := chunk(map[string]any{}, a.finish)
	if s.engine == LlamaServer && !a.quirks.NoUsage {
		last["usage"] = a.usage(n)
		last["timings"] = map[string]any{"cache_n": a.req.CachedTokens, "prompt_n": a.prompt - a.req.CachedTokens, "predicted_n": n}
	}
	if !send(last) {
		return
	}
	if s.engine == VLLM && a.req.IncludeUsage && !a.quirks.NoUsage {
		if !send(map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": a.req.Model,
			"choices": []any{}, "usage": a.usage(n)}) {
			return
		}
	}
	if !a.quirks.NoDone {
		write("data: [DONE]\n\n")
	}
}

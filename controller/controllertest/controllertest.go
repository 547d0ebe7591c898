// Package controllertest is a scripted controller for tests: a
// controller.Backend, handed to controller.NewWith, that answers every
// chat call in the test's own process with what its responder returns —
// no server, no HTTP, no NDJSON to encode and decode. Tests of what Chorus
// does with the controller's replies (plans, picks, answers, revisions,
// their streaming and their ends) use it; tests of the wire — Ollama's
// protocol, an OpenAI-compatible server's streams, refusals as a server
// words them, its latency and prompt cache, a server that goes away — use
// internal/fakeollama or internal/fakeopenai, which serve the same
// controller over HTTP.
package controllertest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/httpwire"
)

// Reply is the scripted answer to one chat call.
type Reply struct {
	// Content is the reply, streamed as word-sized chunks (a word and the
	// blank before it) unless Chunks gives the split.
	Content string
	Chunks  []string
	// Stream, when set, supplies the chunks live: each string received
	// is one chunk, sent at once, and the reply ends when the channel is
	// closed — for tests that see tokens before the end.
	Stream <-chan string
	// Thinking is reasoning streamed before the content: chunks that
	// carry no text of the reply, counted toward its cut.
	Thinking string
	// DoneReason is the final chunk's reason: "stop" when empty, and
	// "length" when the call's NumPredict cut the reply short.
	DoneReason string
	// ChunkDelay is waited before every chunk; a cancelled call stops
	// waiting at once.
	ChunkDelay time.Duration
	// Stall holds the reply open after its last chunk, without a final
	// one, until the call's context ends: a model that never stops.
	Stall bool
	// Err ends the call with this error after the chunks: a server that
	// fails mid-reply, or, with no chunks, refuses the call.
	Err error
	// PromptEvalCount is the prompt's tokens in the final chunk; 0
	// counts the words of the messages.
	PromptEvalCount int
}

// Backend is the scripted controller. Its methods are safe for
// concurrent use: a turn's stages call it from several goroutines.
type Backend struct {
	mu       sync.Mutex
	models   []string
	caps     map[string][]string
	respond  func(ctx context.Context, req controller.ChatRequest) Reply
	requests []controller.ChatRequest
}

// New returns a scripted controller with no models; it echoes the last
// user message until OnChat gives it a responder.
func New() *Backend { return &Backend{caps: map[string][]string{}} }

// Controller is a controller for model on b, with opts: what
// controller.New would return for a server at a made-up host.
func (b *Backend) Controller(model string, opts controller.Options) *controller.Controller {
	return controller.NewWith(b, "http://scripted.invalid", model, opts)
}

// AddModel serves a model with the given capabilities ("completion",
// "vision", "thinking"; none says "completion").
func (b *Backend) AddModel(name string, caps ...string) {
	if len(caps) == 0 {
		caps = []string{"completion"}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.models, name) {
		b.models = append(b.models, name)
	}
	b.caps[name] = caps
}

// OnChat sets the responder: it sees each call as the Controller made it
// and returns the reply. It may block (on ctx, or on a test's gate).
func (b *Backend) OnChat(fn func(ctx context.Context, req controller.ChatRequest) Reply) {
	b.mu.Lock()
	b.respond = fn
	b.mu.Unlock()
}

// Requests returns the chat calls so far, oldest first.
func (b *Backend) Requests() []controller.ChatRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requests)
}

// Models implements controller.Backend.
func (b *Backend) Models(context.Context) ([]controller.ModelInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]controller.ModelInfo, len(b.models))
	for i, m := range b.models {
		out[i] = controller.ModelInfo{Name: m, Model: m}
	}
	return out, nil
}

// Capabilities implements controller.Backend: a model it does not serve
// is missing, as a server says.
func (b *Backend) Capabilities(_ context.Context, model string) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	caps, ok := b.caps[model]
	if !ok {
		return nil, b.missing(model)
	}
	return slices.Clone(caps), nil
}

// missing is the refusal of a model the backend does not serve.
func (b *Backend) missing(model string) error {
	return &controller.StatusError{Code: 404, Message: fmt.Sprintf("model %q not found", model), Kind: controller.ErrModelMissing}
}

// Chat implements controller.Backend: the responder's reply, streamed in
// chunks as a server streams it. A model it does not serve is refused, so
// are images to a model without "vision".
func (b *Backend) Chat(ctx context.Context, req controller.ChatRequest, fn func(controller.ChatChunk)) error {
	start := time.Now()
	b.mu.Lock()
	b.requests = append(b.requests, req)
	caps, ok := b.caps[req.Model]
	respond := b.respond
	b.mu.Unlock()
	if !ok {
		return b.missing(req.Model)
	}
	if hasImages(req.Messages) && !slices.Contains(caps, "vision") {
		return &controller.StatusError{Code: 400, Message: fmt.Sprintf("%s does not support vision", req.Model)}
	}
	if respond == nil {
		respond = echo
	}
	rep := respond(ctx, req)
	reason := cmp.Or(rep.DoneReason, "stop")
	count := 0
	// send streams one chunk; false when NumPredict is used up.
	send := func(c controller.ChatChunk) (bool, error) {
		if req.NumPredict > 0 && count >= req.NumPredict {
			reason = "length"
			return false, nil
		}
		if err := httpwire.Sleep(ctx, rep.ChunkDelay); err != nil {
			return false, err
		}
		count++
		fn(c)
		return true, nil
	}
	for _, t := range Split(rep.Thinking) {
		if ok, err := send(controller.ChatChunk{Reasoning: len(t)}); err != nil {
			return err
		} else if !ok {
			break
		}
	}
	if err := stream(ctx, rep, send); err != nil {
		return err
	}
	if rep.Err != nil {
		return rep.Err
	}
	if rep.Stall {
		<-ctx.Done()
		return ctx.Err()
	}
	prompt := rep.PromptEvalCount
	if prompt == 0 {
		for _, m := range req.Messages {
			prompt += len(strings.Fields(m.Content)) + 4 + 576*len(m.Images)
		}
	}
	took := max(time.Since(start), time.Duration(count)*time.Millisecond)
	fn(controller.ChatChunk{Done: true, DoneReason: reason, PromptEvalCount: prompt, PromptEvalDuration: time.Duration(prompt) * 100 * time.Microsecond,
		EvalCount: count, EvalDuration: took})
	return nil
}

// stream sends rep's content: its live Stream, or its chunks.
func stream(ctx context.Context, rep Reply, send func(controller.ChatChunk) (bool, error)) error {
	if rep.Stream == nil {
		chunks := rep.Chunks
		if chunks == nil {
			chunks = Split(rep.Content)
		}
		for _, c := range chunks {
			if ok, err := send(controller.ChatChunk{Content: c}); err != nil || !ok {
				return err
			}
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c, open := <-rep.Stream:
			if !open {
				return nil
			}
			if ok, err := send(controller.ChatChunk{Content: c}); err != nil || !ok {
				return err
			}
		}
	}
}

// echo is the reply without a responder: the last user message.
func echo(_ context.Context, req controller.ChatRequest) Reply {
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	return Reply{Content: "echo: " + last}
}

// Split cuts s into word-sized chunks, each a word with the blanks before
// it, as a model's tokens arrive.
func Split(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if prev, _ := utf8.DecodeLastRuneInString(s[:i]); i > start && unicode.IsSpace(r) && !unicode.IsSpace(prev) {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func hasImages(msgs []controller.Message) bool {
	return slices.ContainsFunc(msgs, func(m controller.Message) bool { return len(m.Images) > 0 })
}

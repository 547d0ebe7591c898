package controller_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
)

// endless streams piece until ctx ends: a model that never stops.
func endless(ctx context.Context, piece string) <-chan string {
	return countingEndless(ctx, piece, new(atomic.Int64))
}

// endlessServers are both backends' servers streaming piece forever,
// whatever num_predict or max_tokens says.
func endlessServers(t *testing.T, piece string) map[string]*controller.Controller {
	olla := fakeollama.New(t)
	olla.AddModel(fakeollama.Model{Name: "m"})
	olla.OnChatContext(func(ctx context.Context, _ *api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Stream: endless(ctx, piece), IgnoreNumPredict: true}
	})
	oai := fakeopenai.NewController(t, fakeopenai.VLLM, "m")
	oai.OnChat(func(ctx context.Context, _ *fakeopenai.ChatRequest) fakeopenai.ChatReply {
		return fakeopenai.ChatReply{Stream: endless(ctx, piece)}
	})
	// A timeout the test would otherwise run into: the cut must come long
	// before it.
	opts := controller.Options{Timeout: time.Minute}
	ollaCtl, err := controller.New(olla.URL, "m", opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Kind = "openai"
	oaiCtl, err := controller.New(oai.URL+"/v1", "m", opts)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*controller.Controller{"ollama": ollaCtl, "openai": oaiCtl}
}

// TestEndlessReplyIsCutAtItsTokenLimit: a server that streams past
// num_predict / max_tokens forever is cut at the limit — counted in pieces
// for small ones, in bytes for pieces of any size — and the reply reads as
// one the server stopped for length, with a note saying Chorus cut it.
func TestEndlessReplyIsCutAtItsTokenLimit(t *testing.T) {
	const limit = 300
	for _, piece := range []struct{ name, text string }{{"token pieces", " word"}, {"huge pieces", strings.Repeat("x", 64<<10)}} {
		for kind, ctl := range endlessServers(t, piece.text) {
			t.Run(piece.name+"/"+kind, func(t *testing.T) {
				streamed := 0
				reply, err := ctl.Chat(context.Background(), controller.ChatCall{
					Messages:   []controller.Message{{Role: "user", Content: "STAGE: ANSWER\nsay something"}},
					NumPredict: limit, OnToken: func(s string) { streamed += len(s) }})
				if err != nil {
					t.Fatalf("the endless reply was not cut: %v", err)
				}
				if !reply.Truncated() || !reply.Cut {
					t.Fatalf("the cut reply does not read as cut for length: done %q, cut %v", reply.DoneReason, reply.Cut)
				}
				if n := len(reply.Content); n > limit*16 || n == 0 || streamed != n {
					t.Fatalf("the reply kept %d bytes (%d streamed) for a %d-token limit", n, streamed, limit)
				}
				if len(reply.Notes) == 0 || !strings.Contains(reply.Notes[len(reply.Notes)-1], "Chorus cut the reply") {
					t.Fatalf("no note says the reply was cut: %q", reply.Notes)
				}
			})
		}
	}
}

// TestPromptOverBudgetIsNotSent: a call whose prompt is over
// controller.prompt_tokens is refused before it reaches the server — a keyed
// server that bills every input token included — with the fix named.
func TestPromptOverBudgetIsNotSent(t *testing.T) {
	srv := fakeopenai.NewController(t, fakeopenai.VLLM, "m")
	srv.RequireKey("sk-test")
	ctl := newOpenAI(t, srv.URL+"/v1", "m", controller.Options{Key: "sk-test", PromptTokens: 1000})
	if got := ctl.Options().PromptBytes(); got != 1000*controller.BytesPerToken {
		t.Fatalf("prompt budget %d bytes", got)
	}
	fits := []controller.Message{{Role: "user", Content: strings.Repeat("a", 4000)}}
	if _, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: fits}); err != nil {
		t.Fatalf("a prompt of exactly the budget: %v", err)
	}
	over := []controller.Message{{Role: "system", Content: strings.Repeat("a", 3000)}, {Role: "user", Content: strings.Repeat("b", 1001)}}
	_, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: over})
	if !errors.Is(err, controller.ErrPromptTooLarge) || !strings.Contains(err.Error(), "controller.prompt_tokens") {
		t.Fatalf("over budget: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the server got %d requests; the one over budget was sent", n)
	}
}

// TestPromptBudgetDefaultsFromTheContext: without prompt_tokens, the
// budget is three quarters of num_ctx, leaving the reply room.
func TestPromptBudgetDefaultsFromTheContext(t *testing.T) {
	for _, c := range []struct{ numCtx, prompt, want int }{{8192, 0, 6144}, {0, 0, 6144}, {32768, 0, 24576}, {8192, 2000, 2000}} {
		ctl := controller.NewWith(nil, "http://127.0.0.1:1", "m", controller.Options{NumCtx: c.numCtx, PromptTokens: c.prompt})
		if got := ctl.Options().PromptTokens; got != c.want {
			t.Errorf("num_ctx %d, prompt_tokens %d: budget %d tokens, want %d", c.numCtx, c.prompt, got, c.want)
		}
	}
}

// countingEndless is endless, counting in sent the pieces handed to the
// server.
func countingEndless(ctx context.Context, piece string, sent *atomic.Int64) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		for {
			select {
			case ch <- piece:
				sent.Add(1)
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// TestEndlessNonContentIsCut: every chunk of a reply counts toward its cut,
// not only its content — a server that streams reasoning forever (Ollama's
// message.thinking, an OpenAI-compatible reasoning_content), or only SSE
// comments, pings or empty events, is cut at the call's token limit, long
// before controller.timeout, as one that streams content is.
func TestEndlessNonContentIsCut(t *testing.T) {
	t.Parallel()
	const limit = 300
	huge := strings.Repeat("x", 64<<10)
	type server struct {
		kind  string
		start func(t *testing.T, sent *atomic.Int64) *controller.Controller
	}
	// A timeout the test would run into: the cut must come first.
	opts := controller.Options{Timeout: 20 * time.Second}
	ollamaThinking := func(piece string) func(t *testing.T, sent *atomic.Int64) *controller.Controller {
		return func(t *testing.T, sent *atomic.Int64) *controller.Controller {
			olla := fakeollama.New(t)
			olla.AddModel(fakeollama.Model{Name: "m"})
			olla.OnChatContext(func(ctx context.Context, _ *api.ChatRequest) fakeollama.Reply {
				return fakeollama.Reply{Stream: countingEndless(ctx, piece, sent), StreamThinking: true, IgnoreNumPredict: true}
			})
			ctl, err := controller.New(olla.URL, "m", opts)
			if err != nil {
				t.Fatal(err)
			}
			return ctl
		}
	}
	openai := func(reply func(ctx context.Context, sent *atomic.Int64) fakeopenai.ChatReply) func(t *testing.T, sent *atomic.Int64) *controller.Controller {
		return func(t *testing.T, sent *atomic.Int64) *controller.Controller {
			oai := fakeopenai.NewController(t, fakeopenai.VLLM, "m")
			oai.OnChat(func(ctx context.Context, _ *fakeopenai.ChatRequest) fakeopenai.ChatReply { return reply(ctx, sent) })
			o := opts
			o.Kind = "openai"
			ctl, err := controller.New(oai.URL+"/v1", "m", o)
			if err != nil {
				t.Fatal(err)
			}
			return ctl
		}
	}
	reasoning := func(piece string) func(ctx context.Context, sent *atomic.Int64) fakeopenai.ChatReply {
		return func(ctx context.Context, sent *atomic.Int64) fakeopenai.ChatReply {
			return fakeopenai.ChatReply{Stream: countingEndless(ctx, piece, sent), StreamReasoning: true}
		}
	}
	raw := func(piece string) func(ctx context.Context, sent *atomic.Int64) fakeopenai.ChatReply {
		return func(ctx context.Context, sent *atomic.Int64) fakeopenai.ChatReply {
			return fakeopenai.ChatReply{Raw: countingEndless(ctx, piece, sent)}
		}
	}
	for name, s := range map[string]server{
		"ollama thinking tokens":        {"ollama", ollamaThinking(" word")},
		"ollama huge thinking":          {"ollama", ollamaThinking(huge)},
		"openai reasoning_content":      {"openai", openai(reasoning(" word"))},
		"openai huge reasoning_content": {"openai", openai(reasoning(huge))},
		"openai SSE comments":           {"openai", openai(raw(": keep-alive\n\n"))},
		"openai huge SSE comment lines": {"openai", openai(raw(":" + huge + "\n"))},
		"openai pings":                  {"openai", openai(raw("event: ping\ndata: {\"type\": \"ping\"}\n\n"))},
		"openai empty events":           {"openai", openai(raw("data: \n\n"))},
		"openai blank lines":            {"openai", openai(raw("\n"))},
		"openai chunks with no text":    {"openai", openai(raw(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{}}]}` + "\n\n"))},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int64
			ctl := s.start(t, &sent)
			start := time.Now()
			reply, err := ctl.Chat(context.Background(), controller.ChatCall{
				Messages:   []controller.Message{{Role: "user", Content: "STAGE: PLANNING\nplan something"}},
				NumPredict: limit})
			if err != nil {
				t.Fatalf("the endless stream was not cut (after %s, %d pieces sent): %v", time.Since(start).Round(time.Millisecond), sent.Load(), err)
			}
			if !reply.Cut || !reply.Truncated() {
				t.Fatalf("the reply does not read as cut for length: done %q, cut %v", reply.DoneReason, reply.Cut)
			}
			if reply.Content != "" {
				t.Fatalf("the cut reply holds %q: what the server sent was not content", reply.Content)
			}
			if strings.Contains(name, "huge") && sent.Load() >= limit/2 {
				// 64 KB pieces: the bytes, at 16 a token, cut after the
				// first; what the sockets held is all that was sent.
				t.Fatalf("%d pieces of 64 KB were sent before the cut: it counted pieces, not bytes", sent.Load())
			}
		})
	}
}

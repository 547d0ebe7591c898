package controller_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/ollamatest"
)

// TestRealOllamaKeepsThePrefix: against a real Ollama server, a second call
// that shares the first's head prefills only its tail. Ollama v0.11.4
// counts the whole prompt in prompt_eval_count either way, so what shows
// the cache is prompt_eval_duration — and Chorus's own estimate of the
// prefilled tokens, from the prompts it sent.
func TestRealOllamaKeepsThePrefix(t *testing.T) {
	// A server of its own: what it measures is that server's prompt cache.
	host := ollamatest.Start(t)
	ctl, err := controller.New(host, ollamatest.Model, controller.Options{Timeout: 2 * time.Minute, AnswerTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	// The tiny model's vocabulary is bytes: about 1,700 tokens of head.
	// Each round starts from a head of its own (nothing cached), then asks
	// again with the same head and another tail. Timing is the server's only
	// signal of reuse (prompt_eval_count is the whole prompt either way),
	// and a loaded machine can slow any one call: the reuse must show in
	// one of three rounds — a server that does not reuse shows it in none.
	var first, second controller.Reply
	reused := false
	for round := range 3 {
		head := controller.Message{Role: "system", Content: fmt.Sprintf("round %d: %s", round, strings.Repeat("a stable prefix of skills. ", 62))}
		call := func(tail string) controller.Reply {
			t.Helper()
			r, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{head, {Role: "user", Content: tail}}, NumPredict: 4})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		first = call("STAGE: PLAN\nRequest: caption the photo")
		second = call("STAGE: ANSWER\nRequest: caption the photo")
		t.Logf("round %d — first: %d prompt tokens in %v (%d prefilled by estimate); second: %d in %v (%d)", round,
			first.PromptEvalCount, first.PromptEvalDuration, first.Prefilled, second.PromptEvalCount, second.PromptEvalDuration, second.Prefilled)
		if second.PromptEvalCount < 1600 {
			t.Fatalf("the second prompt is %d tokens; the head did not reach the server", second.PromptEvalCount)
		}
		if second.Prefilled*4 > first.Prefilled {
			t.Errorf("prefilled estimate: first %d, second %d", first.Prefilled, second.Prefilled)
		}
		if second.PromptEvalDuration*2 <= first.PromptEvalDuration {
			reused = true
			break
		}
	}
	if !reused {
		t.Errorf("in three rounds the second call never evaluated its prompt in under half the first's time (last: %v vs %v): the prefix was not reused", second.PromptEvalDuration, first.PromptEvalDuration)
	}
}

// TestRealOllamaOpenAIKind: the openai kind against a real server — Ollama
// v0.11.4's OpenAI-compatible API at /v1, with the tiny random-weight model
// and Ollama's real grammar sampler. The model list, a streamed reply whose
// JSON follows the stage's schema, the token bound, and usage.
func TestRealOllamaOpenAIKind(t *testing.T) {
	host := ollamatest.Shared(t)
	ctl, err := controller.New(host+"/v1", ollamatest.Model, controller.Options{Kind: "openai", Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if st := ctl.Check(ctx); st.Err != nil || !st.Pulled {
		t.Fatalf("check: %+v", st)
	}
	ms, err := ctl.Models(ctx)
	if err != nil || len(ms) == 0 {
		t.Fatalf("models %+v %v", ms, err)
	}
	schema := []byte(`{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object","properties":{"task":{"type":"string","enum":["image-to-text","text-to-speech"]},"id":{"type":"integer"}},"required":["task","id"]}}},"required":["tasks"]}`)
	tokens := 0
	r, err := ctl.Chat(ctx, controller.ChatCall{Messages: []controller.Message{
		{Role: "system", Content: "You plan tasks. Answer in JSON."}, {Role: "user", Content: "STAGE: PLAN\ncaption the photo"}},
		Format: schema, NumPredict: 256, OnToken: func(string) { tokens++ }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reply %q: done %q, %d prompt tokens, %d reply tokens, %d streamed chunks, notes %q", r.Content, r.DoneReason, r.PromptEvalCount, r.EvalCount, tokens, r.Notes)
	if tokens == 0 || r.EvalCount == 0 {
		t.Fatal("nothing streamed")
	}
	if r.DoneReason == "stop" {
		if err := fakeollama.Validate(schema, []byte(r.Content)); err != nil {
			t.Errorf("a finished reply under the schema does not follow it: %v", err)
		}
	}
	short, err := ctl.Chat(ctx, controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "say something long"}}, NumPredict: 3})
	if err != nil || short.DoneReason != "length" {
		t.Fatalf("a reply bounded to 3 tokens: %+v %v", short, err)
	}
	if _, err := ctl.WithModel("missing").Chat(ctx, controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}}); !errors.Is(err, controller.ErrModelMissing) {
		t.Errorf("a model the server lacks: %v", err)
	}
}

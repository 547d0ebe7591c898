package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/ollamatest"
)

// TestRealOllamaKeepsThePrefix: against a real Ollama server, a second call
// that shares the first's head prefills only its tail. Ollama v0.11.4
// counts the whole prompt in prompt_eval_count either way, so what shows
// the cache is prompt_eval_duration — and Chorus's own estimate of the
// prefilled tokens, from the prompts it sent.
func TestRealOllamaKeepsThePrefix(t *testing.T) {
	host := ollamatest.Start(t)
	ctl, err := controller.New(host, ollamatest.Model, controller.Options{Timeout: 2 * time.Minute, AnswerTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	// The tiny model's vocabulary is bytes: about 1,700 tokens of head.
	head := controller.Message{Role: "system", Content: strings.Repeat("a stable prefix of skills. ", 62)}
	call := func(tail string) controller.Reply {
		t.Helper()
		r, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{head, {Role: "user", Content: tail}}, NumPredict: 4})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := call("STAGE: PLAN\nRequest: caption the photo")
	second := call("STAGE: ANSWER\nRequest: caption the photo")
	t.Logf("first: %d prompt tokens in %v (%d prefilled by estimate); second: %d in %v (%d)",
		first.PromptEvalCount, first.PromptEvalDuration, first.Prefilled, second.PromptEvalCount, second.PromptEvalDuration, second.Prefilled)
	if second.PromptEvalCount < 1600 {
		t.Fatalf("the second prompt is %d tokens; the head did not reach the server", second.PromptEvalCount)
	}
	if second.PromptEvalDuration*2 > first.PromptEvalDuration {
		t.Errorf("the second call evaluated its prompt in %v, the first in %v: the prefix was not reused", second.PromptEvalDuration, first.PromptEvalDuration)
	}
	if second.Prefilled*4 > first.Prefilled {
		t.Errorf("prefilled estimate: first %d, second %d", first.Prefilled, second.Prefilled)
	}
}

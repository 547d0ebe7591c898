package ui

import (
	"strings"
	"testing"
	"time"
)

// warmUps counts the warm-up calls the fake controller received: the
// planning marker alone, one token asked for.
func warmUps(env *testEnv) int {
	n := 0
	for _, req := range env.ollama.ChatRequests() {
		if last := req.Messages[len(req.Messages)-1].Content; strings.TrimSpace(last) == "STAGE: PLAN" && req.Options["num_predict"] == float64(1) {
			n++
		}
	}
	return n
}

// TestChatWarmsThePromptHeadWhenItOpens: with Warm and WarmOnOpen the chat
// sends the prompt head to the controller as soon as it opens, before any
// request, and again after /model; without them it sends nothing.
func TestChatWarmsThePromptHeadWhenItOpens(t *testing.T) {
	for _, warm := range []bool{true, false} {
		env := newTestEnv(t)
		opts := env.options(t)
		opts.Warm, opts.WarmOnOpen = warm, warm
		m, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		s := startSession(t, m, 100, 30)
		s.ready()
		deadline := time.Now().Add(guard)
		for warm && warmUps(env) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // the warm-up is a background call to another process
		}
		if got := warmUps(env); (got > 0) != warm {
			t.Fatalf("warm=%v: %d warm-up calls when the chat opened", warm, got)
		}
		if warm {
			s.submit("/model llama3.2:3b")
			for warmUps(env) < 2 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			reqs := env.ollama.ChatRequests()
			last := reqs[len(reqs)-1]
			if warmUps(env) < 2 || last.Model != "llama3.2:3b" {
				t.Fatalf("no warm-up for the new controller after /model (%d warm-ups, last call to %s)", warmUps(env), last.Model)
			}
		}
		s.finish()
	}
}

package sshd_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sshd"
)

// warmUps returns the controller calls that warmed the prompt head: the
// planning stage's bare marker, one token to generate.
func warmUps(reqs []api.ChatRequest) []api.ChatRequest {
	var out []api.ChatRequest
	for _, req := range reqs {
		if len(req.Messages) > 0 && strings.TrimSpace(req.Messages[len(req.Messages)-1].Content) == "STAGE: PLAN" &&
			req.Options["num_predict"] == float64(1) {
			out = append(out, req)
		}
	}
	return out
}

// TestSSHServerWarmsTheHeadOnceForAllChats: chorus serve --ssh sends the
// prompt head to the controller once, when it starts, before anyone
// connects; the chats that open after it do not warm it again (they share
// the engine, and so the head), and a chat's first planning call starts
// with exactly what was warmed, so the server's prompt cache serves it.
func TestSSHServerWarmsTheHeadOnceForAllChats(t *testing.T) {
	t.Parallel()
	s := startServer(t, 4)
	deadline := time.Now().Add(guard)
	for len(warmUps(s.ollama.ChatRequests())) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the warm-up is a background call
	}
	if len(warmUps(s.ollama.ChatRequests())) == 0 {
		t.Fatal("the server did not warm the prompt head when it started")
	}
	alice, bob := testKey(t, 1), testKey(t, 2)
	s.allow(t, bob)
	_, ta := s.open(t, alice, 100, 30)
	_, tb := s.open(t, bob, 100, 30)
	ma := ta.waitFor(t, 0, "Ask anything")
	tb.waitFor(t, 0, "Ask anything")
	ta.typeText(t, "zebra facts please\r")
	ta.waitFor(t, ma, "Served over ssh: zebras.")
	s.ollama.WaitIdle()

	reqs := s.ollama.ChatRequests()
	warm := warmUps(reqs)
	if len(warm) != 1 {
		t.Fatalf("%d warm-up calls for a server with two chats, want 1 (the server's, at start)", len(warm))
	}
	var plan *api.ChatRequest
	for i, req := range reqs {
		last := req.Messages[len(req.Messages)-1].Content
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) && strings.Contains(last, "zebra facts") {
			plan = &reqs[i]
			break
		}
	}
	if plan == nil {
		t.Fatal("no planning call for the chat's request")
	}
	w := warm[0].Messages
	head, marker := w[:len(w)-1], w[len(w)-1]
	if len(plan.Messages) != len(w) || !slices.EqualFunc(plan.Messages[:len(head)], head, sameMessage) ||
		!strings.HasPrefix(plan.Messages[len(head)].Content, marker.Content) {
		t.Fatalf("the planning call does not start with the warmed head: %d messages warmed, %d planned", len(w), len(plan.Messages))
	}
}

func sameMessage(a, b api.Message) bool { return a.Role == b.Role && a.Content == b.Content }

// TestSSHServerWarmOff: with controller.warm off (a hosted controller that
// bills input tokens) the server sends no warm-up, at start or for a chat.
func TestSSHServerWarmOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, 4, func(o *sshd.Options) { o.Config.Controller.Warm = "off" })
	alice := testKey(t, 1)
	_, ta := s.open(t, alice, 100, 30)
	ma := ta.waitFor(t, 0, "Ask anything")
	ta.typeText(t, "zebra facts please\r")
	ta.waitFor(t, ma, "Served over ssh: zebras.")
	s.ollama.WaitIdle()
	if n := len(warmUps(s.ollama.ChatRequests())); n != 0 {
		t.Fatalf("%d warm-up calls with controller.warm off, want 0", n)
	}
}

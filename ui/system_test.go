package ui

import (
	"strings"
	"testing"
)

// TestSystemReachesTheAnswer: the chat's instruction for its answers
// (chorus --system or --role) is read by every turn's answer call, first,
// and by no planning call.
func TestSystemReachesTheAnswer(t *testing.T) {
	env := newTestEnv(t)
	opts := env.options(t)
	opts.System = "Answer in French."
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := startSession(t, m, 100, 30)
	s.ready()
	s.submit("first question")
	s.wait("turn 1", turnsDone(1))
	s.submit("second question")
	s.wait("turn 2", turnsDone(2))
	s.finish()
	answers := 0
	for _, r := range env.ollama.ChatRequests() {
		last := r.Messages[len(r.Messages)-1].Content
		has := strings.Contains(last, "Answer in French.")
		switch _, body, _ := strings.Cut(last, "\n"); {
		case strings.HasPrefix(body, "Request: "):
			if has {
				t.Errorf("a planning call read the answer's instruction:\n%s", last)
			}
		case has && strings.HasPrefix(body, "The user's instruction for this answer"):
			answers++
		}
	}
	if answers != 2 {
		t.Errorf("%d answer calls started with the instruction, want 2", answers)
	}
}

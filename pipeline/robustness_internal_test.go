package pipeline

import (
	"strings"
	"testing"
)

// TestHistoryKeepsALongLastAnswer: the answer before a follow-up is often
// longer than the history budget (its workflow section alone can be); it
// is clipped, with its files, rather than dropped with everything before.
func TestHistoryKeepsALongLastAnswer(t *testing.T) {
	long := "The lighthouse picture is ready. " + strings.Repeat("Workflow line. ", 400)
	h := []Message{
		{Role: "user", Content: "draw a lighthouse"},
		{Role: "assistant", Content: long, Resources: []string{"/out/lighthouse.png"}},
	}
	msgs := historyMessages(h, 4000)
	if len(msgs) == 0 {
		t.Fatal("a long last answer dropped the whole history")
	}
	last := msgs[len(msgs)-1]
	if last.Role != "assistant" || !strings.HasPrefix(last.Content, "The lighthouse picture is ready.") || !strings.HasSuffix(last.Content, "[files: /out/lighthouse.png]") {
		t.Fatalf("last message = %s %q…", last.Role, last.Content[:min(80, len(last.Content))])
	}
	total := 0
	for _, m := range msgs {
		total += len(m.Content)
	}
	if total > 4000 {
		t.Fatalf("history is %d bytes, over the 4000-byte budget", total)
	}
	if got := historyMessages(h[:1], 4000); len(got) != 1 || got[0].Content != "draw a lighthouse" {
		t.Fatalf("short history changed: %+v", got)
	}
}

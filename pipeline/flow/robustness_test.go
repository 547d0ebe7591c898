package flow

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

// TestMergeSharesNoSlices: merged constraints travel in plan events and
// reports; changing the standing constraints afterwards must not change
// what an earlier turn recorded.
func TestMergeSharesNoSlices(t *testing.T) {
	standing := Constraints{Licenses: []string{"mit", "apache-2.0"}, Tasks: []string{"image-to-text"}}
	merged := standing.Merge(Constraints{LocalOnly: true})
	standing.Licenses[0], standing.Tasks[0] = "gpl-3.0", "ocr"
	if merged.Licenses[0] != "mit" || merged.Tasks[0] != "image-to-text" || !merged.LocalOnly {
		t.Fatalf("merged constraints changed with the standing ones: %+v", merged)
	}
}

// TestOverlongReferenceIsText: "<resource>-" with more digits than an int
// holds is not a reference for the validator, so the executor must not
// read it as one (it read it as task 0).
func TestOverlongReferenceIsText(t *testing.T) {
	v := "see <resource>-99999999999999999999 and <resource>-2"
	if refs := Refs(v); len(refs) != 1 || refs[0] != 2 {
		t.Fatalf("Refs = %v", refs)
	}
	got, ok := SubstituteRefs(v, func(n int) (string, bool) {
		if n != 2 {
			t.Errorf("asked for task %d", n)
		}
		return "two", true
	})
	if !ok || got != "see <resource>-99999999999999999999 and two" {
		t.Fatalf("substituteRefs = %q, %v", got, ok)
	}
}

package flow

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chorusai/chorus/controller"
)

// TestFitPromptCutsTheLargestDataFirst: over the budget, the biggest quoted
// data gives way first, small data and the messages' own words stay, and
// what is cut says how much was left out.
func TestFitPromptCutsTheLargestDataFirst(t *testing.T) {
	head := controller.Message{Role: "system", Content: strings.Repeat("h", 1000)}
	big, small := strings.Repeat("B", 50_000), strings.Repeat("s", 300)
	msgs := []controller.Message{head,
		{Role: "user", Content: "STAGE: TASK\ntext: " + QuoteData(big) + "\nquestion: " + QuoteData(small) + "\nDo it."}}
	if got := Fit(msgs, 1<<20); &got[0] != &msgs[0] {
		t.Fatal("a prompt within the budget was copied or changed")
	}
	got := Fit(msgs, 4000)
	if n := controller.PromptSize(got); n > 4000 || n < 3800 {
		t.Fatalf("fitted to %d bytes for a 4000-byte budget", n)
	}
	last := got[1].Content
	if got[0].Content != head.Content || !strings.HasPrefix(last, "STAGE: TASK\ntext: <data>\nBBB") || !strings.HasSuffix(last, "\nDo it.") {
		t.Fatalf("the head or the message's own words were cut: %q", last)
	}
	if !strings.Contains(last, QuoteData(small)) || !strings.Contains(last, "more bytes]\n</data>") {
		t.Fatalf("the small data was cut, or the big one without a note: %q", last)
	}
	if msgs[1].Content == last {
		t.Fatal("fitPrompt changed its argument")
	}
}

// TestFitPromptCutsMessagesWhenDataIsNotEnough: a prompt whose bulk is not
// quoted data (a long request, a long chat log) is cut message by message,
// each keeping its start — the stage marker — and a quote it cuts into is
// closed again.
func TestFitPromptCutsMessagesWhenDataIsNotEnough(t *testing.T) {
	msgs := []controller.Message{{Role: "system", Content: "head"},
		{Role: "user", Content: strings.Repeat("old request ", 2000)},
		{Role: "user", Content: "STAGE: PLAN\nRequest: " + strings.Repeat("words ", 3000) + QuoteData(strings.Repeat("d", 100))}}
	got := Fit(msgs, 2000)
	if n := controller.PromptSize(got); n > 2000 {
		t.Fatalf("fitted to %d bytes", n)
	}
	last := got[2].Content
	if PromptStage(last) != string(StagePlanning) || strings.Count(last, "<data>") != strings.Count(last, "</data>") {
		t.Fatalf("the stage marker was lost or a quote left open: %q", last)
	}
}

// TestFitPromptNeverExceedsTheBudget: whatever the messages, a prompt whose
// head leaves room fits — in any mix of data, text and sizes.
func TestFitPromptNeverExceedsTheBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		msgs := []controller.Message{{Role: "system", Content: strings.Repeat("h", rng.IntN(2000))}}
		for range 1 + rng.IntN(6) {
			var b strings.Builder
			b.WriteString("STAGE: X\n")
			for range rng.IntN(4) {
				b.WriteString(strings.Repeat("é", rng.IntN(3000)))
				b.WriteString(QuoteData(strings.Repeat("ü", rng.IntN(20000))))
			}
			msgs = append(msgs, controller.Message{Role: []string{"user", "assistant"}[rng.IntN(2)], Content: b.String()})
		}
		budget := len(msgs[0].Content) + len(msgs)*64 + rng.IntN(30000)
		got := Fit(msgs, budget)
		if n := controller.PromptSize(got); n > budget {
			t.Fatalf("case %d: %d bytes over a %d-byte budget", i, n, budget)
		}
		for j, m := range got {
			if !strings.HasPrefix(m.Content, msgs[j].Content[:min(len(msgs[j].Content), budgetFloor-2)]) {
				t.Fatalf("case %d: message %d lost its start: %q", i, j, m.Content[:min(40, len(m.Content))])
			}
		}
	}
}

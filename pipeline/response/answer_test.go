package response

import (
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
)

// TestStreamerDropsSplitThinkTag: a <think> block is dropped from the
// answer even when its tag arrives split across tokens, and what was held
// back while it might have been the tag is not lost.
func TestStreamerDropsSplitThinkTag(t *testing.T) {
	run := func(toks ...string) (string, []string) {
		var b strings.Builder
		var sent []string
		push, flush := streamer(&b, func(ev flow.Event) { sent = append(sent, ev.(flow.TokenEvent).Text) })
		for _, tok := range toks {
			push(tok)
		}
		flush()
		if got := strings.Join(sent, ""); got != b.String() {
			t.Fatalf("emitted %q but kept %q", got, b.String())
		}
		return b.String(), sent
	}
	for _, tc := range []struct {
		toks []string
		want string
	}{
		{[]string{"<th", "ink>the user wants</th", "ink>\n\nHello", " there"}, "Hello there"},
		{[]string{"\n", "<", "think>", "x", "</think>", "Hi"}, "Hi"},
		{[]string{"<thinking", " aloud is fine"}, "<thinking aloud is fine"},
		{[]string{"\n\n", " ", "Hello"}, " Hello"},
		{[]string{"<"}, "<"},
		{[]string{"<b>bold</b>"}, "<b>bold</b>"},
	} {
		if got, _ := run(tc.toks...); got != tc.want {
			t.Errorf("%q → %q, want %q", tc.toks, got, tc.want)
		}
	}
}

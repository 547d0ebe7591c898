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
	t.Parallel()
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

// TestUnwrittenGivesTheResults: without the controller's answer, each
// task's text result is still given, quoted line by line and cleaned of
// terminal controls; a failed task's is not (its error is the
// workflow's), a spilled one names its file, a long one is cut.
func TestUnwrittenGivesTheResults(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", unwrittenResult)
	runs := []*flow.TaskRun{
		{Task: flow.Task{ID: 1, Task: "automatic-speech-recognition"}, Status: flow.StatusOK, Text: "first line\nsecond \x1b[2Jline"},
		{Task: flow.Task{ID: 2, Task: "translation"}, Status: flow.StatusError, Text: "half a translation"},
		{Task: flow.Task{ID: 3, Task: "summarization"}, Status: flow.StatusOK, Text: long, Spilled: "/out/summary.txt"},
		{Task: flow.Task{ID: 4, Task: "text-to-image"}, Status: flow.StatusOK, Files: []string{"/out/a.png"}},
	}
	var events []flow.Event
	r := &Responder{Emit: func(ev flow.Event) { events = append(events, ev) }}
	got := r.Unwritten(errFake("the server closed the stream"), runs)
	for _, want := range []string{
		"_The controller could not write an answer (the server closed the stream); here is what ran._",
		"**Task 1 (automatic-speech-recognition):**\n\n> first line\n> second line",
		"**Task 3 (summarization):**",
		"_The whole result: `/out/summary.txt`_",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, not := range []string{"half a translation", "Task 4", "\x1b", long} {
		if strings.Contains(got, not) {
			t.Errorf("%q should not be in\n%s", not, got)
		}
	}
	if len(events) != 2 || events[1].(flow.TokenEvent).Text != got {
		t.Errorf("events = %v", events)
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }

package response

import (
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
)

// TestCorrectionOfEveryEnd: every way a task the early answer named can
// end without its file — failure, a timeout, a cancel, a file elsewhere —
// gets its line; a task that made its file, or that no answer named, none.
func TestCorrectionOfEveryEnd(t *testing.T) {
	t.Parallel()
	named := func(status, err string) *flow.TaskRun {
		return &flow.TaskRun{Task: flow.Task{ID: 2, Task: "text-to-speech"}, Fixed: "/out/2.wav", Promised: true, Status: status, Err: err}
	}
	cancelled := named(flow.StatusError, "cancelled")
	cancelled.Cancelled = true
	elsewhere := named(flow.StatusOK, "")
	elsewhere.Files = []string{"/out/2.flac"}
	made := named(flow.StatusOK, "")
	made.Files = []string{"/out/2.wav"}
	unnamed := named(flow.StatusError, "boom")
	unnamed.Promised = false
	for _, tc := range []struct {
		run  *flow.TaskRun
		want string
	}{
		{named(flow.StatusError, "all 2 attempts failed; last: test/voice on huggingface: HTTP 500"),
			"task 2 (text-to-speech) failed, so /out/2.wav was not produced: all 2 attempts failed; last: test/voice on huggingface: HTTP 500"},
		{named(flow.StatusError, "timed out after 3m0s (task_timeout)"), "task 2 (text-to-speech) failed, so /out/2.wav was not produced: timed out after 3m0s (task_timeout)"},
		{cancelled, "task 2 (text-to-speech) was cancelled, so /out/2.wav was not produced"},
		{elsewhere, "task 2 (text-to-speech) wrote /out/2.flac, not /out/2.wav"},
		{made, ""},
		{unnamed, ""},
	} {
		if got := Correction(tc.run); got != tc.want {
			t.Errorf("Correction(%s %q) = %q, want %q", tc.run.Status, tc.run.Err, got, tc.want)
		}
	}
}

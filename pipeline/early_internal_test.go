package pipeline

import (
	"testing"
)

// TestCheckEarlyNeverPromisesAFileThatWillNotExist: the answer starts
// early only when every task left is making its file at a fixed path; a
// task whose selection found no model ("video-to-audio → none: no model can
// run it now", logged before the answer) will never make its file, so the
// answer waits rather than name it — as it waits for a task whose answer
// needs more than a path, or while a revision is due.
func TestCheckEarlyNeverPromisesAFileThatWillNotExist(t *testing.T) {
	t.Parallel()
	video := func() *taskRun {
		return &taskRun{task: Task{ID: 1, Task: "text-to-video"}, fixed: "/out/1.mp4", choice: &choice{}}
	}
	for _, tc := range []struct {
		name  string
		runs  func() []*taskRun
		early bool
	}{
		{"every task left makes a fixed file", func() []*taskRun {
			return []*taskRun{video(), {task: Task{ID: 2, Task: "text-to-speech"}, fixed: "/out/2.wav", choice: &choice{}}}
		}, true},
		{"a task without a model", func() []*taskRun {
			return []*taskRun{video(), {task: Task{ID: 2, Task: "video-to-audio", Dep: []int{1}}, fixed: "/out/2.wav",
				choice: &choice{none: "no model can run it now: ffmpeg — no command endpoint is configured"}}}
		}, false},
		{"a task whose answer needs its text", func() []*taskRun {
			return []*taskRun{video(), {task: Task{ID: 2, Task: "image-to-text"}, choice: &choice{}}}
		}, false},
		{"a failure a revision answers first", func() []*taskRun {
			return []*taskRun{video(), {task: Task{ID: 2, Task: "text-to-image"}, finished: true, status: StatusError, fault: faultForGood}}
		}, false},
		{"nothing left to wait for", func() []*taskRun {
			return []*taskRun{{task: Task{ID: 1, Task: "text-to-image"}, finished: true, status: StatusOK}}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			asked := make(chan struct{})
			close(asked)
			d := &dispatcher{turnRun: &turnRun{e: &Engine{opts: Options{Revise: 1}}}, answerNow: make(chan struct{}), asked: asked,
				phase: started, current: tc.runs()}
			d.checkEarly()
			select {
			case <-d.answerNow:
				if !tc.early {
					t.Fatal("the answer started early")
				}
			default:
				if tc.early {
					t.Fatal("the answer did not start early")
				}
			}
		})
	}
}

// TestCorrectionOfEveryEnd: every way a task the early answer named can
// end without its file — failure, a timeout, a cancel, a file elsewhere —
// gets its line; a task that made its file, or that no answer named, none.
func TestCorrectionOfEveryEnd(t *testing.T) {
	t.Parallel()
	named := func(status, err string) *taskRun {
		return &taskRun{task: Task{ID: 2, Task: "text-to-speech"}, fixed: "/out/2.wav", promised: true, status: status, err: err}
	}
	cancelled := named(StatusError, "cancelled")
	cancelled.cancelled = true
	elsewhere := named(StatusOK, "")
	elsewhere.files = []string{"/out/2.flac"}
	made := named(StatusOK, "")
	made.files = []string{"/out/2.wav"}
	unnamed := named(StatusError, "boom")
	unnamed.promised = false
	for _, tc := range []struct {
		run  *taskRun
		want string
	}{
		{named(StatusError, "all 2 attempts failed; last: test/voice on huggingface: HTTP 500"),
			"task 2 (text-to-speech) failed, so /out/2.wav was not produced: all 2 attempts failed; last: test/voice on huggingface: HTTP 500"},
		{named(StatusError, "timed out after 3m0s (task_timeout)"), "task 2 (text-to-speech) failed, so /out/2.wav was not produced: timed out after 3m0s (task_timeout)"},
		{cancelled, "task 2 (text-to-speech) was cancelled, so /out/2.wav was not produced"},
		{elsewhere, "task 2 (text-to-speech) wrote /out/2.flac, not /out/2.wav"},
		{made, ""},
		{unnamed, ""},
	} {
		if got := correction(tc.run); got != tc.want {
			t.Errorf("correction(%s %q) = %q, want %q", tc.run.status, tc.run.err, got, tc.want)
		}
	}
}

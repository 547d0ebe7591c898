package pipeline

import (
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
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
		return &taskRun{TaskRun: flow.TaskRun{Task: flow.Task{ID: 1, Task: "text-to-video"}, Fixed: "/out/1.mp4", Choice: &flow.Choice{}}}
	}
	for _, tc := range []struct {
		name  string
		runs  func() []*taskRun
		early bool
	}{
		{"every task left makes a fixed file", func() []*taskRun {
			return []*taskRun{video(), {TaskRun: flow.TaskRun{Task: flow.Task{ID: 2, Task: "text-to-speech"}, Fixed: "/out/2.wav", Choice: &flow.Choice{}}}}
		}, true},
		{"a task without a model", func() []*taskRun {
			return []*taskRun{video(), {TaskRun: flow.TaskRun{Task: flow.Task{ID: 2, Task: "video-to-audio", Dep: []int{1}}, Fixed: "/out/2.wav",
				Choice: &flow.Choice{None: "no model can run it now: ffmpeg — no command endpoint is configured"}}}}
		}, false},
		{"a task whose answer needs its text", func() []*taskRun {
			return []*taskRun{video(), {TaskRun: flow.TaskRun{Task: flow.Task{ID: 2, Task: "image-to-text"}, Choice: &flow.Choice{}}}}
		}, false},
		{"a failure a revision answers first", func() []*taskRun {
			return []*taskRun{video(), {TaskRun: flow.TaskRun{Task: flow.Task{ID: 2, Task: "text-to-image"}, Status: flow.StatusError, Fault: flow.FaultForGood}, finished: true}}
		}, false},
		{"nothing left to wait for", func() []*taskRun {
			return []*taskRun{{TaskRun: flow.TaskRun{Task: flow.Task{ID: 1, Task: "text-to-image"}, Status: flow.StatusOK}, finished: true}}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			asked := make(chan struct{})
			close(asked)
			d := &dispatcher{revisions: 1, answerNow: make(chan struct{}), asked: asked,
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

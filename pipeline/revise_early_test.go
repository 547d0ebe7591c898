package pipeline_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// The revision (revise.go) and the early answer (early.go) together: a
// revision comes only before the answer call starts. A task that failed
// for good keeps the answer from starting early, so the revision comes
// first; a task that fails while an early answer streams gets the
// correction line and no revision.

// heldVoice makes test/voice answer only when release is called, with
// status (a WAV for 200).
func heldVoice(r *rig, status int) (release func()) {
	gate := make(chan struct{})
	r.hf.Model("test/voice", "text-to-speech").Respond(func(_ *http.Request, _ []byte) (int, string, []byte) {
		<-gate
		if status != http.StatusOK {
			return status, "application/json", []byte(`{"error":"the voice crashed"}`)
		}
		return http.StatusOK, "audio/wav", fakehf.WAV(1600, 16000)
	})
	return func() { close(gate) }
}

func TestRevisionBeforeTheEarlyAnswer(t *testing.T) {
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, EarlyAnswer: true, Revise: 1}))
	img := r.image("dog.png", 40, 30)
	r.hf.Model("test/captioner-big", "image-to-text").Status(http.StatusInternalServerError, "CUDA out of memory")
	r.hf.Model("test/captioner-small", "image-to-text").Status(http.StatusInternalServerError, "CUDA out of memory")
	r.hf.Model("test/vqa-small", "visual-question-answering")
	release := heldVoice(r, http.StatusOK)
	// The caption (a text: no early answer for it) fails while the
	// greeting is still being spoken — a file at a fixed path, which
	// alone would let the answer start early.
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-speech", nil, map[string]string{"text": "hello"}),
	)
	r.revisions = []fakeollama.Reply{revision(task(3, "visual-question-answering", nil, map[string]string{"image": img, "text": "what is it?"}))}
	done := make(chan *pipeline.Report, 1)
	go func() {
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "describe " + img + " and say hello"})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor(t, "the caption to fail", func() bool {
		return slices.ContainsFunc(eventsOf[pipeline.TaskEndEvent](r), func(e pipeline.TaskEndEvent) bool { return e.ID == 1 })
	})
	release()
	rep := <-done
	if rep == nil {
		t.FailNow()
	}
	if r.calls("revise") != 1 || len(rep.Revisions) != 1 || r.taskEnd(3).Status != pipeline.StatusOK {
		t.Fatalf("the revision did not come first: %d calls, %+v", r.calls("revise"), rep.Revisions)
	}
	for _, s := range eventsOf[pipeline.StageEvent](r) {
		if s.Stage == pipeline.StageResponse && len(s.Early) > 0 {
			t.Fatalf("the answer started early, before the revision: %+v", s)
		}
	}
	if strings.Contains(rep.Answer, "Correction") {
		t.Fatalf("answer:\n%s", rep.Answer)
	}
}

func TestEarlyAnswerFailureGetsNoRevision(t *testing.T) {
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, EarlyAnswer: true, Revise: 1}))
	release := heldVoice(r, http.StatusInternalServerError)
	r.planJSON(task(1, "text-to-speech", nil, map[string]string{"text": "good morning"}))
	r.revisions = []fakeollama.Reply{revision(task(2, "text-to-speech", nil, map[string]string{"text": "good morning!"}))}
	done := make(chan *pipeline.Report, 1)
	go func() {
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "say good morning"})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor(t, "the early answer while the voice speaks", func() bool { return r.calls("respond") == 1 })
	release()
	rep := <-done
	if rep == nil {
		t.FailNow()
	}
	if r.calls("revise") != 0 || len(rep.Revisions) != 0 || len(eventsOf[pipeline.PlanRevisionEvent](r)) != 0 {
		t.Fatalf("revised after the answer started: %d calls", r.calls("revise"))
	}
	if !strings.Contains(rep.Answer, "_Correction: task 1 (text-to-speech) failed") {
		t.Fatalf("no correction line:\n%s", rep.Answer)
	}
}

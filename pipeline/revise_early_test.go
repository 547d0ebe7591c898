package pipeline_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// The revision (revise.go) and the early answer (early.go) together. A
// task that failed for good keeps the answer from starting early, so the
// revision comes first; a task that fails after an early answer began
// gets its correction line, and then the revision, its tasks and the
// answer's continuation.

func TestRevisionBeforeTheEarlyAnswer(t *testing.T) {
	t.Parallel()
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, EarlyAnswer: true, Revise: 1}))
	img := r.image("dog.png", 40, 30)
	r.hf.Model("test/captioner-big", "image-to-text").Status(http.StatusInternalServerError, "CUDA out of memory")
	r.hf.Model("test/captioner-small", "image-to-text").Status(http.StatusInternalServerError, "CUDA out of memory")
	r.hf.Model("test/vqa-small", "visual-question-answering")
	release := heldModel(r, "test/voice", "text-to-speech", http.StatusOK)
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

// heldModel makes the Hugging Face model id answer only when release is
// called: with status and Hugging Face's error body, or, for 200, with
// the task's usual answer (a WAV).
func heldModel(r *rig, id, task string, status int) (release func()) {
	gate := make(chan struct{})
	r.hf.Model(id, task).Respond(func(_ *http.Request, _ []byte) (int, string, []byte) {
		<-gate
		if status != http.StatusOK {
			return status, "application/json", []byte(`{"error":"CUDA out of memory"}`)
		}
		return http.StatusOK, "audio/wav", fakehf.WAV(1600, 16000)
	})
	var once sync.Once
	return func() { once.Do(func() { close(gate) }) }
}

// The run with the defaults: a lone text-to-video lets the answer
// start at once; the video model then fails. The correction line follows
// the answer, the plan is still revised to a still image, and the answer
// goes on with what the revision made — one answer event holding it all,
// the revision in the report.
func TestEarlyAnswerThenRevision(t *testing.T) {
	t.Parallel()
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, EarlyAnswer: true, Revise: 1}))
	release := heldModel(r, "test/clip-fancy", "text-to-video", http.StatusInternalServerError)
	defer release()
	r.hf.Model("black-forest-labs/FLUX.1-schnell", "text-to-image")
	r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a red fox running"}))
	r.revisions = []fakeollama.Reply{revision(task(2, "text-to-image", nil, map[string]string{"text": "a red fox running"}))}
	r.answers = []fakeollama.Reply{{Content: "Here is your fox video."}, {Content: "The video model is down, so here is a still image instead."}}
	done := make(chan *pipeline.Report, 1)
	go func() {
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "make a short video of a red fox running"})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor(t, "the early answer while the video is made", func() bool { return len(eventsOf[pipeline.TokenEvent](r)) > 0 })
	release()
	rep := <-done
	if rep == nil {
		t.FailNow()
	}
	if r.calls("revise") != 1 || r.calls("respond") != 2 || len(rep.Revisions) != 1 || len(rep.Tasks) != 2 {
		t.Fatalf("calls: revise %d, respond %d; report revisions %+v, tasks %d", r.calls("revise"), r.calls("respond"), rep.Revisions, len(rep.Tasks))
	}
	video, image := rep.Tasks[0], rep.Tasks[1]
	if video.Early == "" || !strings.Contains(video.Correction, "task 1 (text-to-video) failed, so "+video.Early+" was not produced") ||
		image.Status != pipeline.StatusOK || len(image.Files) != 1 || !slices.Contains(rep.Files, image.Files[0]) {
		t.Fatalf("video %+v\nimage %+v", video, image)
	}
	want := "Here is your fox video.\n\n_Correction: " + video.Correction + "._\n\nThe video model is down, so here is a still image instead.\n\n**Workflow**"
	if !strings.HasPrefix(rep.Answer, want) || !strings.Contains(rep.Answer, "Revised after task 1 (text-to-video) failed") {
		t.Fatalf("answer:\n%s\nwant it to start:\n%s", rep.Answer, want)
	}
	// The events: the early answer's tokens, the revision and its task,
	// more tokens, then one answer event holding the whole text.
	types := r.typesInOrder()
	first, revised, started, last := slices.Index(types, "token"), slices.Index(types, "plan_revision"), -1, -1
	for i, ty := range types {
		switch ty {
		case "task_start":
			started = i
		case "token":
			last = i
		}
	}
	answers := eventsOf[pipeline.AnswerEvent](r)
	if !(first < revised && revised < started && started < last && last < slices.Index(types, "answer")) || len(answers) != 1 {
		t.Fatalf("events: %v", types)
	}
	var streamed strings.Builder
	for _, ev := range eventsOf[pipeline.TokenEvent](r) {
		streamed.WriteString(ev.Text)
	}
	if answers[0].Text != rep.Answer || strings.TrimSpace(streamed.String()) != rep.Answer {
		t.Fatalf("the answer event or the tokens are not the whole answer:\n%q\n%q", answers[0].Text, streamed.String())
	}
	// The continuation continues the conversation after the early answer
	// and the revision, and is told what the revision made.
	r.mu.Lock()
	cont := r.requests["respond"][1]
	r.mu.Unlock()
	last2 := cont.Messages[len(cont.Messages)-1].Content
	if !slices.ContainsFunc(cont.Messages, func(m api.Message) bool { return m.Role == "assistant" && m.Content == "Here is your fox video." }) ||
		!slices.ContainsFunc(cont.Messages, func(m api.Message) bool { return strings.HasPrefix(m.Content, "STAGE: REVISE") }) ||
		!strings.Contains(last2, image.Files[0]) || strings.Contains(last2, "is producing") {
		t.Fatalf("continuation prompt:\n%s", last2)
	}
}

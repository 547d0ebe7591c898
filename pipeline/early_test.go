package pipeline_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// earlyRig is a chain whose last task is text-to-speech: a caption read
// aloud. The voice answers only when the test lets it (hold), with fail's
// status, so the test sees what happens while it is still speaking.
func earlyRig(t *testing.T, early bool, fail bool) (r *rig, img string, release func()) {
	r = newRig(t, withOptions(pipeline.Options{ControllerTasks: true, EarlyAnswer: early}))
	img = r.image("dog.png", 40, 30)
	r.hf.Model("test/captioner-big", "image-to-text")
	gate := make(chan struct{})
	r.hf.Model("test/voice", "text-to-speech").Respond(func(_ *http.Request, _ []byte) (int, string, []byte) {
		<-gate
		if fail {
			return http.StatusBadRequest, "application/json", []byte(`{"error":"Input text is too long for this voice"}`)
		}
		return http.StatusOK, "audio/wav", fakehf.WAV(1600, 16000)
	})
	r.pick = func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: `{"picks":{"1":1}}`} }
	r.plans = []fakeollama.Reply{{Content: `{"tasks":[{"task":"image-to-text","args":{"image":"` + img + `"}},{"task":"text-to-speech","args":{"text":"<resource>-1"}}]}`}}
	return r, img, func() { close(gate) }
}

// waitFor polls cond until it holds or ten seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func answerPrompt(r *rig) string {
	for _, req := range r.chatRequests() {
		if stage(&req) == "respond" {
			return req.Messages[len(req.Messages)-1].Content
		}
	}
	return ""
}

// With response.early on, the answer call starts while the last task, a
// text-to-speech, is still speaking: the answer is told the file it is
// producing, and the file is there, at that path, when the turn ends.
func TestEarlyAnswerWhileTheLastMediaTaskRuns(t *testing.T) {
	t.Parallel()
	r, img, release := earlyRig(t, true, false)
	done := make(chan *pipeline.Report, 1)
	go func() {
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and read it aloud"})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor(t, "the answer call while text-to-speech runs", func() bool { return r.calls("respond") == 1 })
	if n := len(eventsOf[pipeline.TaskEndEvent](r)); n != 1 {
		t.Fatalf("%d tasks ended before the answer started; want only the caption", n)
	}
	prompt := answerPrompt(r)
	release()
	rep := <-done
	if rep == nil {
		t.FailNow()
	}
	tts := rep.Tasks[1]
	if tts.Status != pipeline.StatusOK || len(tts.Files) != 1 || tts.Early != tts.Files[0] || tts.Correction != "" {
		t.Fatalf("text-to-speech record = %+v", tts)
	}
	if !strings.Contains(prompt, "Task 2 (text-to-speech) is producing "+tts.Files[0]) {
		t.Fatalf("the answer call was not told the file task 2 is producing:\n%s", prompt)
	}
	if _, err := os.Stat(tts.Files[0]); err != nil {
		t.Fatal(err)
	}
	var early []int
	for _, ev := range eventsOf[pipeline.StageEvent](r) {
		if ev.Stage == pipeline.StageResponse {
			early = ev.Early
		}
	}
	if !slices.Equal(early, []int{2}) || strings.Contains(rep.Answer, "Correction") {
		t.Fatalf("response stage early = %v, answer = %q", early, rep.Answer)
	}
}

// When the task the early answer named then fails, one line after the
// answer corrects it — before the workflow section — and the report (what
// the session keeps and --json prints) says which task and why.
func TestEarlyAnswerCorrectedWhenTheTaskFails(t *testing.T) {
	t.Parallel()
	r, img, release := earlyRig(t, true, true)
	done := make(chan *pipeline.Report, 1)
	go func() {
		rep, _ := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and read it aloud"})
		done <- rep
	}()
	waitFor(t, "the answer call while text-to-speech runs", func() bool { return r.calls("respond") == 1 })
	release()
	rep := <-done
	tts := rep.Tasks[1]
	if tts.Status != pipeline.StatusError || tts.Early == "" || !strings.Contains(tts.Correction, "task 2 (text-to-speech) failed, so "+tts.Early+" was not produced") {
		t.Fatalf("text-to-speech record = %+v", tts)
	}
	line := "_Correction: " + tts.Correction + "._"
	if !strings.HasPrefix(rep.Answer, "Here is what I found.\n\n"+line+"\n\n**Workflow**") {
		t.Fatalf("answer = %q; want the answer, one correction line, then the workflow", rep.Answer)
	}
	if _, err := os.Stat(tts.Early); !os.IsNotExist(err) {
		t.Fatalf("the named file exists after the task failed: %v", err)
	}
	b, err := pipeline.MarshalEvent(pipeline.ReportEvent{Report: *rep})
	if err != nil || !strings.Contains(string(b), `"correction":`) || !strings.Contains(string(b), `"early":`) {
		t.Fatalf("--json report = %s (%v)", b, err)
	}
	var streamed strings.Builder
	for _, ev := range eventsOf[pipeline.TokenEvent](r) {
		streamed.WriteString(ev.Text)
	}
	if !strings.Contains(streamed.String(), line) {
		t.Fatalf("the correction was not streamed: %q", streamed.String())
	}
}

// response.early off keeps today's order: the answer waits for every task.
func TestEarlyAnswerOff(t *testing.T) {
	t.Parallel()
	r, img, release := earlyRig(t, false, false)
	release()
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and read it aloud"})
	if err != nil {
		t.Fatal(err)
	}
	types := r.typesInOrder()
	last := 0
	for i, ty := range types {
		if ty == "task_end" {
			last = i
		}
	}
	if first := slices.Index(types, "token"); first < last || rep.Tasks[1].Early != "" {
		t.Fatalf("the answer streamed before every task ended: %v", types)
	}
}

// Ctrl+C while the task the early answer named still runs: the turn ends
// cancelled, and a line — written here, no controller call — says the file
// the answer gave will not be there.
func TestEarlyAnswerCorrectedWhenCancelled(t *testing.T) {
	t.Parallel()
	r, img, release := earlyRig(t, true, false)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		rep *pipeline.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := r.run(ctx, pipeline.Turn{Request: "caption " + img + " and read it aloud"})
		done <- result{rep, err}
	}()
	waitFor(t, "the early answer while text-to-speech runs", func() bool { return len(eventsOf[pipeline.TokenEvent](r)) > 0 })
	cancel()
	res := <-done
	if !errors.Is(res.err, pipeline.ErrCancelled) || res.rep == nil || len(res.rep.Tasks) != 2 {
		t.Fatalf("turn ended with %v, report %+v", res.err, res.rep)
	}
	tts := res.rep.Tasks[1]
	line := "_Correction: task 2 (text-to-speech) was cancelled, so " + tts.Early + " was not produced._"
	var streamed strings.Builder
	for _, ev := range eventsOf[pipeline.TokenEvent](r) {
		streamed.WriteString(ev.Text)
	}
	if tts.Early == "" || !tts.Cancelled || tts.Correction == "" || !strings.HasSuffix(streamed.String(), "\n\n"+line) {
		t.Fatalf("task 2 %+v\nstreamed %q\nwant it to end with %q", tts, streamed.String(), line)
	}
	if n := len(r.chatRequests()); n != 3 || r.calls("respond") != 1 {
		t.Fatalf("%d controller calls (respond %d): the correction after a cancel must be written locally", n, r.calls("respond"))
	}
}

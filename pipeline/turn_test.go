package pipeline_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"go.uber.org/goleak"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

func TestSingleTaskTurn(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("cat.png", 64, 48)
	r.hf.Model("test/captioner-small", "image-to-text")
	r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
	r.answer = fakeollama.Reply{Content: "The picture shows a cat on a sofa."}

	rep, err := r.run(context.Background(), pipeline.Turn{Request: "what is in " + img + "?", Attachments: []string{img}})
	if err != nil {
		t.Fatal(err)
	}
	end := r.taskEnd(1)
	if end.Status != pipeline.StatusOK || end.Model != "test/captioner-small" || !strings.Contains(end.Result, "64x48 photo of a cat") {
		t.Fatalf("task_end = %+v", end)
	}
	// Two candidates: the controller is asked, names a model that is not a
	// candidate, and selection falls back to the most downloaded one. The
	// fake does not serve that one (HTTP 404), so execution moves on to the
	// next candidate.
	if got := r.model(1); got.Decided != "fallback: top-ranked" || got.Model != "test/captioner-big" || r.calls("select") != 1 {
		t.Fatalf("model event = %+v", got)
	}
	if len(end.Attempts) != 2 || end.Attempts[0].Model != "test/captioner-big" || end.Attempts[0].Error == "" || end.Attempts[1].Error != "" {
		t.Fatalf("attempts = %+v", end.Attempts)
	}
	reqs := r.hf.RequestsFor("test/captioner-small")
	if len(reqs) != 1 {
		t.Fatalf("captioner requests = %d", len(reqs))
	}
	want, _ := os.ReadFile(img)
	if string(reqs[0].Body) != string(want) || reqs[0].Headers.Get("Authorization") != "Bearer hf_test" {
		t.Fatalf("the image was not sent as raw bytes with the token")
	}
	if !strings.HasPrefix(rep.Answer, "The picture shows a cat on a sofa.") || !strings.Contains(rep.Answer, "`test/captioner-small` on huggingface") {
		t.Fatalf("answer = %q", rep.Answer)
	}
	types := r.typesInOrder()
	for _, want := range []string{"plan", "model", "task_start", "task_end", "token", "answer", "report"} {
		if !slices.Contains(types, want) {
			t.Fatalf("event %q missing from %v", want, types)
		}
	}
	if slices.Index(types, "plan") > slices.Index(types, "model") || slices.Index(types, "task_end") > slices.Index(types, "token") {
		t.Fatalf("events out of order: %v", types)
	}
}

func TestChainAcrossModalities(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("dog.png", 40, 30)
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/voice", "text-to-speech")
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"choices": [{"id": 1, "model": "test/captioner-big", "reason": "more downloads"}]}`}
	}
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "describe " + img + " and read it aloud"})
	if err != nil {
		t.Fatal(err)
	}
	caption := r.taskEnd(1).Result
	tts := r.hf.RequestsFor("test/voice")
	if len(tts) != 1 || !strings.Contains(string(tts[0].Body), caption) || caption == "" {
		t.Fatalf("text-to-speech did not receive the caption %q: %v", caption, tts)
	}
	end := r.taskEnd(2)
	if end.Status != pipeline.StatusOK || len(end.Files) != 1 || !strings.HasSuffix(end.Files[0], ".wav") {
		t.Fatalf("task_end 2 = %+v", end)
	}
	data, err := os.ReadFile(end.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if samples, _, err := fakehf.WAVInfo(data); err != nil || samples != 160*len([]rune(caption)) {
		t.Fatalf("the audio file is not the endpoint's WAV for the caption: %v samples=%d", err, samples)
	}
	if !strings.Contains(rep.Answer, end.Files[0]) || !slices.Equal(rep.Files, end.Files) {
		t.Fatalf("the answer does not name the generated file's full path: %q", rep.Answer)
	}
	if m := r.model(1); m.Model != "test/captioner-big" || m.Decided != "controller choice" || m.Reason != "more downloads" {
		t.Fatalf("model event = %+v", m)
	}
}

func TestIndependentBranchesOverlap(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("room.png", 32, 32)
	release1 := r.hf.Model("test/classifier", "image-classification").Hold()
	release2 := r.hf.Model("test/detector", "object-detection").Hold()
	defer release1()
	defer release2()
	r.planJSON(
		task(1, "image-classification", nil, map[string]string{"image": img}),
		task(2, "object-detection", nil, map[string]string{"image": img}),
	)
	done := make(chan error, 1)
	go func() {
		_, err := r.run(context.Background(), pipeline.Turn{Request: "classify and detect"})
		done <- err
	}()
	// Both held requests are in flight at once only if the scheduler runs
	// the independent tasks concurrently; sequential execution times out.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.hf.WaitInFlight(ctx, 2); err != nil {
		t.Fatalf("the two independent tasks never ran at the same time: %v", err)
	}
	release1()
	release2()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a, b := r.hf.RequestsFor("test/classifier")[0], r.hf.RequestsFor("test/detector")[0]
	if !(a.Start.Before(b.End) && b.Start.Before(a.End)) {
		t.Fatalf("requests did not overlap: %v–%v and %v–%v", a.Start, a.End, b.Start, b.End)
	}
	if end := r.taskEnd(2); end.Status != pipeline.StatusOK || len(end.Files) == 0 {
		t.Fatalf("detection should produce an annotated image: %+v", end)
	}
}

func TestMalformedPlanIsReasked(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	r.plans = []fakeollama.Reply{
		{Content: "Sure, I'll classify the image for you!"},
		{Content: "```json\n[{\"task\": \"image-cls\", \"id\": \"1\", \"dep\": [-1], \"args\": {\"image\": \"" + img + "\"},}]\n```"},
	}
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "classify " + img}); err != nil {
		t.Fatal(err)
	}
	if r.calls("plan") != 2 {
		t.Fatalf("planning calls = %d, want a single re-ask", r.calls("plan"))
	}
	reqs := r.chatRequests()
	second := reqs[1].Messages
	if last := second[len(second)-1].Content; !strings.Contains(last, "not a valid plan") {
		t.Fatalf("the re-ask does not explain the problem: %q", last)
	}
	if end := r.taskEnd(1); end.Status != pipeline.StatusOK || end.Task != "image-classification" {
		t.Fatalf("task_end = %+v", end)
	}
}

func TestUnusablePlanBecomesPlainChat(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.plans = []fakeollama.Reply{{Content: "no idea"}, {Content: `{"tasks": [{"task": "image-to-text", "id": 1, "dep": [], "args": {"image": "/tmp/a`}}
	r.answer = fakeollama.Reply{Content: "Hello! I can help with images, audio and text."}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if r.calls("plan") != 2 || len(rep.Tasks) != 0 || !strings.HasPrefix(rep.Answer, "Hello!") {
		t.Fatalf("plan calls=%d tasks=%d answer=%q", r.calls("plan"), len(rep.Tasks), rep.Answer)
	}
	errs := eventsOf[pipeline.ErrorEvent](r)
	if len(errs) != 1 || errs[0].Fatal || !strings.Contains(errs[0].Message, "answering without expert models") {
		t.Fatalf("error events = %+v", errs)
	}
}

func TestTruncatedPlanIsReaskedShorter(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	r.plans = []fakeollama.Reply{
		{Content: `{"tasks": [{"task": "image-classification", "id": 1, "dep": [], "args": {"image": "` + img + `"}}, {"task": "image-to-text", "id": 2, "dep": [], "args": {"image": "` + strings.Repeat("x", 4000), DoneReason: "length"},
		{Content: `{"tasks": [{"task": "image-classification", "id": 1, "dep": [], "args": {"image": "` + img + `"}}]}`},
	}
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "classify " + img}); err != nil {
		t.Fatal(err)
	}
	reqs := r.chatRequests()
	if last := reqs[1].Messages[len(reqs[1].Messages)-1].Content; !strings.Contains(last, "cut off") {
		t.Fatalf("re-ask = %q", last)
	}
	if np, _ := reqs[0].Options["num_predict"].(float64); np != 512 {
		t.Fatalf("planning num_predict = %v, want the configured plan_tokens", reqs[0].Options["num_predict"])
	}
	if end := r.taskEnd(1); end.Status != pipeline.StatusOK {
		t.Fatalf("task_end = %+v", end)
	}
}

func TestCyclicAndInventedPlanIsRepaired(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	r.planJSON(
		task(1, "image-to-text", []int{2}, map[string]string{"image": "<resource>-2"}),
		task(2, "text-to-image", []int{1}, map[string]string{"text": "<resource>-1"}),
		task(3, "levitation", nil, map[string]string{"text": "up"}),
		task(4, "image-classification", []int{7}, map[string]string{"image": img}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "do things"})
	if err != nil {
		t.Fatal(err)
	}
	plan := eventsOf[pipeline.PlanEvent](r)[0]
	if len(plan.Tasks) != 1 || plan.Tasks[0].ID != 4 || len(plan.Tasks[0].Dep) != 0 {
		t.Fatalf("plan = %+v", plan)
	}
	for _, want := range []string{"cycle", `"levitation" is not a known task`, "task 7, which does not exist"} {
		if !slices.ContainsFunc(plan.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Fatalf("notes %q lack %q", plan.Notes, want)
		}
	}
	if !strings.Contains(rep.Answer, "Plan repairs") {
		t.Fatalf("the answer does not report the repairs: %q", rep.Answer)
	}
}

func TestFailedTaskFailsDependentsNotSiblings(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	r.hf.Model("test/captioner-big", "image-to-text").Status(500, "CUDA out of memory")
	r.hf.Model("test/captioner-small", "image-to-text").Status(500, "CUDA out of memory")
	r.hf.Model("test/voice", "text-to-speech")
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}),
		task(3, "image-classification", nil, map[string]string{"image": img}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusError || !strings.Contains(e.Error, "CUDA out of memory") || len(e.Attempts) < 2 {
		t.Fatalf("task 1 = %+v", e)
	}
	if e := r.taskEnd(2); e.Status != pipeline.StatusError || !e.Skipped || !strings.Contains(e.Error, "task 1") {
		t.Fatalf("task 2 = %+v", e)
	}
	if e := r.taskEnd(3); e.Status != pipeline.StatusOK {
		t.Fatalf("task 3 = %+v", e)
	}
	if len(r.hf.RequestsFor("test/voice")) != 0 {
		t.Fatal("the dependent task ran although its input failed")
	}
	if !strings.Contains(rep.Answer, "not run") || !strings.Contains(rep.Answer, "failed") {
		t.Fatalf("answer = %q", rep.Answer)
	}
}

func TestCancelMidTurn(t *testing.T) {
	// Not parallel: goleak counts every goroutine of the process.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	release := r.hf.Model("test/classifier", "image-classification").Hold()
	defer release()
	r.planJSON(task(1, "image-classification", nil, map[string]string{"image": img}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.run(ctx, pipeline.Turn{Request: "classify"})
		done <- err
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := r.hf.WaitInFlight(wctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, pipeline.ErrCancelled) {
			t.Fatalf("err = %v, want ErrCancelled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn did not stop promptly after cancellation")
	}
	// Cancelled, not failed: the flag says the user stopped it.
	if e := r.taskEnd(1); e.Status != pipeline.StatusError || !e.Cancelled || e.Error != "cancelled" {
		t.Fatalf("task_end = %+v", e)
	}
	if r.calls("respond") != 0 {
		t.Fatal("a cancelled turn still asked for an answer")
	}
	r.close()
}

func TestCancelWhileAnswerStreams(t *testing.T) {
	// Not parallel: goleak counts every goroutine of the process.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := newRig(t)
	r.answer = fakeollama.Reply{Content: "partial answer", Stall: true}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.run(ctx, pipeline.Turn{Request: "tell me a story"})
		done <- err
	}()
	deadline := time.After(10 * time.Second)
	for len(eventsOf[pipeline.TokenEvent](r)) == 0 {
		select {
		case <-deadline:
			t.Fatal("no token streamed")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, pipeline.ErrCancelled) {
		t.Fatalf("err = %v", err)
	}
	r.close()
}

func TestControllerErrorsNameTheFix(t *testing.T) {
	t.Parallel()
	t.Run("unreachable", func(t *testing.T) {
		r := newRig(t, withWire())
		r.ollama.Stop()
		_, err := r.run(context.Background(), pipeline.Turn{Request: "hi"})
		if !errors.Is(err, controller.ErrUnreachable) || !strings.Contains(err.Error(), "ollama serve") || !strings.Contains(err.Error(), r.ollama.URL) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("not pulled", func(t *testing.T) {
		r := newRig(t, withWire())
		r.ollama.RemoveModel("ctl")
		_, err := r.run(context.Background(), pipeline.Turn{Request: "hi"})
		if !errors.Is(err, controller.ErrModelMissing) || !strings.Contains(err.Error(), "ollama pull ctl") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestHuggingFaceTokenRejected(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.hf.RequireToken("another")
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	r.planJSON(task(1, "image-classification", nil, map[string]string{"image": img}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "x"}); err != nil {
		t.Fatal(err)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusError || !strings.Contains(e.Error, "HF_TOKEN") {
		t.Fatalf("task_end = %+v", e)
	}
}

func TestHuggingFaceLoadingIsWaitedFor(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification").LoadingFor(1, 0.05)
	r.planJSON(task(1, "image-classification", nil, map[string]string{"image": img}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "x"}); err != nil {
		t.Fatal(err)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusOK {
		t.Fatalf("task_end = %+v", e)
	}
	progress := eventsOf[pipeline.TaskProgressEvent](r)
	if len(progress) == 0 || !strings.Contains(strings.ToLower(progress[0].Message), "loading") {
		t.Fatalf("no loading progress: %+v", progress)
	}
}

func TestControllerDoesTextTasks(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.planJSON(task(1, "summarization", nil, map[string]string{"text": "a very long text"}))
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "summarize: a very long text"})
	if err != nil {
		t.Fatal(err)
	}
	m := r.model(1)
	if m.Endpoint != pipeline.EndpointController || m.Decided != "controller" {
		t.Fatalf("model event = %+v", m)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusOK || e.Result != "controller output for the task" {
		t.Fatalf("task_end = %+v", e)
	}
	if !strings.Contains(rep.Answer, "`ctl` on controller") {
		t.Fatalf("answer = %q", rep.Answer)
	}
}

func TestTextAttachmentContentReachesTasks(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	notes := t.TempDir() + "/notes.txt"
	if err := os.WriteFile(notes, []byte("Meeting: ship Chorus on Friday. Owner: Ann."), 0o644); err != nil {
		t.Fatal(err)
	}
	r.planJSON(task(1, "summarization", nil, map[string]string{"text": notes}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "summarize my notes", Attachments: []string{notes}}); err != nil {
		t.Fatal(err)
	}
	var taskReq, respondReq string
	for _, req := range r.chatRequests() {
		last := req.Messages[len(req.Messages)-1].Content
		switch stage(&req) {
		case "task":
			taskReq = last
		case "respond":
			respondReq = last
		}
	}
	if !strings.Contains(taskReq, "ship Chorus on Friday") {
		t.Fatalf("the summarization input is not the file's contents: %q", taskReq)
	}
	if !strings.Contains(respondReq, "Contents of "+notes) {
		t.Fatalf("the response stage does not see the attached text: %q", respondReq)
	}
}

// TestUnwrittenAnswerStillReportsTheWork: when the controller fails to
// write the answer after tasks ran, the experts' work is not lost — the
// turn ends with a line that says what went wrong, then the workflow
// with what each task made; the error is an event of the response stage,
// not the turn's error.
func TestUnwrittenAnswerStillReportsTheWork(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("cat.png", 64, 48)
	r.hf.Model("test/captioner-small", "image-to-text")
	r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
	r.answer = fakeollama.Reply{Error: "model ran out of memory"}

	rep, err := r.run(context.Background(), pipeline.Turn{Request: "what is in " + img + "?", Attachments: []string{img}})
	if err != nil {
		t.Fatalf("the turn failed (%v): its tasks' work is lost", err)
	}
	if end := r.taskEnd(1); end.Status != pipeline.StatusOK {
		t.Fatalf("task_end = %+v", end)
	}
	if !strings.HasPrefix(rep.Answer, "_The controller could not write an answer (") || !strings.Contains(rep.Answer, "model ran out of memory") ||
		!strings.Contains(rep.Answer, "here is what ran._") || !strings.Contains(rep.Answer, "`test/captioner-small` on huggingface") ||
		!strings.Contains(rep.Answer, "**Task 1 (image-to-text):**\n\n> ") || !strings.Contains(rep.Answer, "64x48 photo of a cat") {
		t.Fatalf("answer = %q", rep.Answer)
	}
	var said bool
	for _, ev := range eventsOf[pipeline.ErrorEvent](r) {
		said = said || ev.Stage == pipeline.StageResponse && strings.Contains(ev.Message, "the controller could not write the answer") && !ev.Fatal
	}
	if !said {
		t.Fatalf("no response-stage error event: %v", r.typesInOrder())
	}
}

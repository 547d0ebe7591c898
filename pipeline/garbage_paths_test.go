package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// The controller's later calls clean what it writes as the plan's does
// (TestControllerGarbageIsCleaned): the revision's plan, a pick asked on
// the second slot while the plan streams, a text task the controller does
// itself, and an early answer with the correction line that follows it.

// quotedGarbage is garbage as it sits inside a JSON string.
func quotedGarbage() string {
	g, _ := json.Marshal(garbage)
	return string(g[1 : len(g)-1])
}

// noLeaks fails t for every event r saw, and the report, that carries
// what leaks finds.
func noLeaks(t *testing.T, r *rig, rep *pipeline.Report) {
	t.Helper()
	r.evMu.Lock()
	events := append([]pipeline.Event(nil), r.events...)
	r.evMu.Unlock()
	if rep != nil {
		events = append(events, pipeline.ReportEvent{Report: *rep})
	}
	for _, ev := range events {
		stringsIn(ev, func(s string) {
			if l := leaks(s); len(l) > 0 {
				t.Errorf("%s event carries %q in %q", ev.Type(), l, s)
			}
		})
	}
}

// chunked splits s into pieces of n bytes, on character boundaries.
func chunked(s string, n int) []string {
	var out []string
	for len(s) > n {
		k := n
		for k < len(s) && s[k]&0xc0 == 0x80 {
			k++
		}
		out, s = append(out, s[:k]), s[k:]
	}
	return append(out, s)
}

// TestRevisionGarbageIsCleaned: a revision written around and inside with
// garbage — the task's name, its argument's name and value — runs its
// task on the cleaned values; no event, nor the report, carries any of it.
func TestRevisionGarbageIsCleaned(t *testing.T) {
	t.Parallel()
	r := reviseRig(t, 1)
	r.hf.Model("black-forest-labs/FLUX.1-schnell", "text-to-image")
	r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox in the snow"}))
	q := quotedGarbage()
	r.revisions = []fakeollama.Reply{{Chunks: chunked(garbage+`{"tasks":[{"task":"text-to-`+q+`image","args":{"te`+q+`xt":"a fox`+q+` in the snow"}}]}`+garbage, 5)}}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "make a short video of a fox in the snow"})
	if err != nil {
		t.Fatal(err)
	}
	noLeaks(t, r, rep)
	revs := eventsOf[pipeline.PlanRevisionEvent](r)
	if len(revs) != 1 || len(revs[0].Tasks) != 1 || revs[0].Tasks[0].Task != "text-to-image" || revs[0].Tasks[0].Args["text"] != "a fox in the snow" {
		t.Fatalf("plan_revision events %+v: want the revised task, cleaned", revs)
	}
	if end := r.taskEnd(2); end.Status != pipeline.StatusOK {
		t.Fatalf("the revision's task: %+v", end)
	}
}

// TestSecondSlotPickGarbageIsCleaned: a pick asked on the second slot while
// the plan still streams, its reason and its reply's tail garbage, applies
// its choice with the reason cleaned.
func TestSecondSlotPickGarbageIsCleaned(t *testing.T) {
	t.Parallel()
	r := newRig(t, withSlots(2))
	img := r.image("dog.png", 40, 30)
	release := r.hf.Model("test/captioner-big", "image-to-text").Hold()
	defer release()
	r.hf.Model("test/captioner-small", "image-to-text")
	q := quotedGarbage()
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Chunks: chunked(`{"picks":{"1":1},"reasons":{"1":"the larger`+q+` captioner"}}`+garbage, 4)}
	}
	reply, plan := streamedPlan()
	r.plans = []fakeollama.Reply{reply}
	done := make(chan *pipeline.Report, 1)
	go func() {
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	args, _ := json.Marshal(map[string]string{"image": img})
	plan <- `{"tasks":[{"task":"image-to-text","args":` + string(args) + `}`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.hf.WaitInFlight(ctx, 1); err != nil {
		t.Fatalf("task 1 did not start on the early pick while the plan was still streaming: %v", err)
	}
	plan <- `]}`
	close(plan)
	release()
	rep := <-done
	noLeaks(t, r, rep)
	if m := r.model(1); m.Model != "test/captioner-big" || m.Decided != "controller choice" {
		t.Fatalf("task 1's model = %+v: want the early pick", m)
	}
	// The reason streams after the pick: an event of its own, and the
	// report's.
	reasons := eventsOf[pipeline.ModelReasonEvent](r)
	if len(reasons) != 1 || reasons[0].Reason != "the larger captioner" || rep == nil || rep.Tasks[0].Reason != "the larger captioner" {
		t.Fatalf("reasons %+v, report %+v: want the pick's reason, cleaned", reasons, rep)
	}
}

// TestEarlyAnswerGarbageIsCleaned: an early answer that streams garbage,
// and the correction line that follows it when the task it named fails,
// reach the tokens, the answer and the report clean.
func TestEarlyAnswerGarbageIsCleaned(t *testing.T) {
	t.Parallel()
	r, img, release := earlyRig(t, true, true)
	r.answer = fakeollama.Reply{Chunks: chunked("Here is "+garbage+"what I found."+garbage, 3)}
	done := make(chan *pipeline.Report, 1)
	go func() {
		rep, _ := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and read it aloud"})
		done <- rep
	}()
	waitFor(t, "the answer call while text-to-speech runs", func() bool { return r.calls("respond") == 1 })
	release()
	rep := <-done
	if rep == nil {
		t.FailNow()
	}
	noLeaks(t, r, rep)
	tts := rep.Tasks[1]
	if tts.Correction == "" || !strings.HasPrefix(rep.Answer, "Here is what I found.\n\n_Correction: "+tts.Correction+"._\n\n**Workflow**") {
		t.Fatalf("answer %q: want the cleaned answer, then the correction line", rep.Answer)
	}
	var streamed strings.Builder
	for _, ev := range eventsOf[pipeline.TokenEvent](r) {
		streamed.WriteString(ev.Text)
	}
	if !strings.HasPrefix(streamed.String(), "Here is what I found.") {
		t.Fatalf("streamed %q", streamed.String())
	}
}

// TestControllerTaskGarbageIsCleaned: a text task the controller does
// itself gets a result with none of the garbage it wrote, in its task_end
// and the report, and the answer reads the cleaned result.
func TestControllerTaskGarbageIsCleaned(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.planJSON(task(1, "summarization", nil, map[string]string{"text": "a very long text"}))
	r.taskReply = &fakeollama.Reply{Chunks: chunked(garbage+"A short"+garbage+" text."+garbage, 6)}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "summarize: a very long text"})
	if err != nil {
		t.Fatal(err)
	}
	noLeaks(t, r, rep)
	if e := r.taskEnd(1); e.Status != pipeline.StatusOK || e.Endpoint != pipeline.EndpointController || e.Result != "A short text." {
		t.Fatalf("task_end = %+v: want the controller's result, cleaned", e)
	}
	r.mu.Lock()
	prompt := r.requests["respond"][0].Messages
	r.mu.Unlock()
	if last := prompt[len(prompt)-1].Content; !strings.Contains(last, "A short text.") || len(leaks(last)) > 0 {
		t.Fatalf("the answer prompt does not quote the cleaned result:\n%s", last)
	}
}

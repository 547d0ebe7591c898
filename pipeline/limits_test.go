package pipeline_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// promptBytes is the text of a request to the controller, as the prompt
// budget counts it.
func promptBytes(req api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n
}

// bigText is n bytes of prose ending in a marker only its end holds.
func bigText(n int) string {
	const end = " THE-END-OF-THE-RESULT"
	return strings.Repeat("lorem ipsum dolor sit amet ", n/27+1)[:n-len(end)] + end
}

// TestBigResultIsSpilledAndEveryPromptFits: an expert returns 5 MB of
// text. The controller — doing a text task on it, and answering — is never
// sent more than its prompt budget; the result in events and the report is
// its start and the path of a file in the output folder that holds it
// whole, which the turn lists with its files; a task of the same turn that
// takes the result as an argument still gets it whole.
func TestBigResultIsSpilledAndEveryPromptFits(t *testing.T) {
	t.Parallel()
	whole := bigText(5 << 20)
	var vqaGot string
	ep := &scriptedEndpoint{kind: skills.EndpointHuggingFace, infer: func(_ context.Context, req endpoints.Request) (endpoints.Result, error) {
		if req.Task == "visual-question-answering" {
			vqaGot = req.Args["text"]
			return endpoints.Result{Text: "a cat"}, nil
		}
		return endpoints.Result{Text: whole}, nil
	}}
	r := newRig(t, withEndpoints(ep))
	img := r.image("page.png", 8, 8)
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "summarization", []int{1}, map[string]string{"text": "<resource>-1"}),
		task(3, "visual-question-answering", []int{1}, map[string]string{"image": img, "text": "<resource>-1"}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "read the page, summarise it, ask about it"})
	if err != nil {
		t.Fatal(err)
	}
	budget := r.eng.Controller().Options().PromptBytes()
	stages := map[string]bool{}
	for _, req := range r.chatRequests() {
		stages[stage(&req)] = true
		if n := promptBytes(req); n > budget {
			t.Errorf("a %s call sent %d bytes of prompt, over the %d-byte budget", stage(&req), n, budget)
		}
	}
	if !stages["task"] || !stages["respond"] {
		t.Fatalf("the controller did not do the text task and the answer: %v", stages)
	}
	end := r.taskEnd(1)
	if len(end.Result) > pipeline.DefaultResultCap+200 || strings.Contains(end.Result, "THE-END-OF-THE-RESULT") {
		t.Fatalf("task_end carries %d bytes of the result", len(end.Result))
	}
	if len(end.Files) != 1 || !strings.Contains(end.Result, end.Files[0]) {
		t.Fatalf("the result does not name the file that holds it whole: files %v, result ends %q", end.Files, end.Result[len(end.Result)-200:])
	}
	if b, err := os.ReadFile(end.Files[0]); err != nil || string(b) != whole {
		t.Fatalf("the spilled file does not hold the whole result (%d bytes): %v", len(b), err)
	}
	if !strings.HasPrefix(end.Files[0], r.out) || !slices.Contains(rep.Files, end.Files[0]) {
		t.Fatalf("the spilled file %s is not one of the turn's output files %v", end.Files[0], rep.Files)
	}
	if vqaGot != whole {
		t.Fatalf("the task taking the result as its argument got %d bytes of %d", len(vqaGot), len(whole))
	}
	if e := r.taskEnd(2); e.Status != pipeline.StatusOK {
		t.Fatalf("the summary on the controller: %+v", e)
	}
	for _, tr := range rep.Tasks {
		for k, v := range tr.Args {
			if len(v) > pipeline.DefaultResultCap+200 {
				t.Errorf("the report keeps task %d's argument %s whole (%d bytes)", tr.ID, k, len(v))
			}
		}
	}
	b, err := pipeline.MarshalEvent(pipeline.ReportEvent{Report: *rep})
	if err != nil || len(b) > 1<<20 {
		t.Fatalf("the report event is %d bytes: %v", len(b), err)
	}
}

// TestEndlessControllerRepliesAreCut: a controller server that streams
// past num_predict forever, in the plan and in the answer, is cut at the
// limit; the plan is asked again as after any plan cut off by length, the
// answer stands as far as it went, and the turn says what happened.
func TestEndlessControllerRepliesAreCut(t *testing.T) {
	t.Parallel()
	r := newRig(t, withWire()) // a server that streams past num_predict
	forever := func() fakeollama.Reply {
		ch := make(chan string)
		go func() {
			for {
				select {
				case ch <- " and more":
				case <-t.Context().Done():
					return
				}
			}
		}()
		return fakeollama.Reply{Stream: ch, IgnoreNumPredict: true}
	}
	r.plans = []fakeollama.Reply{forever(), {Content: `{"tasks": []}`}}
	r.answer = forever()
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "hello"})
	if err != nil {
		t.Fatalf("the turn failed: %v", err)
	}
	if n := r.calls("plan"); n != 2 {
		t.Fatalf("%d planning calls; the cut plan was not asked again", n)
	}
	cuts := 0
	for _, e := range eventsOf[pipeline.ErrorEvent](r) {
		if strings.Contains(e.Message, "Chorus cut its reply") && !e.Fatal {
			cuts++
		}
	}
	if cuts != 2 {
		t.Fatalf("%d error events say a reply was cut, want 2 (plan, answer): %+v", cuts, eventsOf[pipeline.ErrorEvent](r))
	}
	if !strings.Contains(rep.Answer, "and more") || len(rep.Answer) > 4096*16 {
		t.Fatalf("the answer kept %d bytes", len(rep.Answer))
	}
}

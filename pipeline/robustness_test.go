package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"

	"github.com/ollama/ollama/api"
)

// scriptedEndpoint stands in for an endpoint whose Infer misbehaves in ways
// no protocol fake can: a bug that panics, structured data that is not JSON.
type scriptedEndpoint struct {
	kind  skills.EndpointKind
	infer func(ctx context.Context, req endpoints.Request) (endpoints.Result, error)
}

func (e *scriptedEndpoint) Kind() skills.EndpointKind                           { return e.kind }
func (e *scriptedEndpoint) Check(ctx context.Context, task, model string) error { return nil }
func (e *scriptedEndpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	return e.infer(ctx, req)
}

// TestPanickingExpertFailsOnlyItsTask: a bug in one expert fails that task
// with a message saying so; the turn goes on and answers.
func TestPanickingExpertFailsOnlyItsTask(t *testing.T) {
	t.Parallel()
	ep := &scriptedEndpoint{kind: skills.EndpointHuggingFace, infer: func(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
		var m map[string]int
		m["boom"]++ //nolint:staticcheck // SA5000: a nil-map write, as a real bug would
		return endpoints.Result{}, nil
	}}
	r := newRig(t, withEndpoints(ep))
	img := r.image("a.png", 8, 8)
	r.planJSON(task(1, "image-classification", nil, map[string]string{"image": img}))
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "classify it"})
	if err != nil {
		t.Fatalf("the turn failed: %v", err)
	}
	end := r.taskEnd(1)
	if end.Status != pipeline.StatusError || !strings.Contains(end.Error, "bug in Chorus") || !strings.Contains(end.Error, "assignment to entry in nil map") {
		t.Fatalf("task_end = %+v", end)
	}
	if rep.Answer == "" || len(rep.Tasks) != 1 || rep.Tasks[0].Status != pipeline.StatusError {
		t.Fatalf("report = %+v", rep)
	}
}

// TestInvalidExpertDataStaysEncodable: structured data that is not JSON
// must not make the task_end and report events unencodable, which would
// lose them from `chorus run --json` and saved sessions.
func TestInvalidExpertDataStaysEncodable(t *testing.T) {
	t.Parallel()
	ep := &scriptedEndpoint{kind: skills.EndpointHuggingFace, infer: func(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
		return endpoints.Result{Text: "cat (0.9)", Data: json.RawMessage(`{"label": cat}`)}, nil
	}}
	r := newRig(t, withEndpoints(ep))
	img := r.image("a.png", 8, 8)
	r.planJSON(task(1, "image-classification", nil, map[string]string{"image": img}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "classify it"}); err != nil {
		t.Fatal(err)
	}
	end := r.taskEnd(1)
	if end.Status != pipeline.StatusOK {
		t.Fatalf("task_end = %+v", end)
	}
	b, err := pipeline.MarshalEvent(end)
	if err != nil {
		t.Fatalf("task_end does not encode: %v", err)
	}
	if !strings.Contains(string(b), `label`) {
		t.Fatalf("the data was dropped instead of kept as text: %s", b)
	}
	reps := eventsOf[pipeline.ReportEvent](r)
	if len(reps) != 1 {
		t.Fatalf("%d report events", len(reps))
	}
	if _, err := pipeline.MarshalEvent(reps[0]); err != nil {
		t.Fatalf("report does not encode: %v", err)
	}
}

// TestPlanEventDepIsAList: "dep" is [] for a task without dependencies,
// never null, in the plan event and the report.
func TestPlanEventDepIsAList(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 8, 8)
	r.hf.Model("test/classifier", "image-classification")
	r.plans = nil
	r.planJSON(map[string]any{"task": "image-classification", "id": 1, "args": map[string]string{"image": img}})
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "classify it"}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []pipeline.Event{eventsOf[pipeline.PlanEvent](r)[0], eventsOf[pipeline.ReportEvent](r)[0]} {
		b, err := pipeline.MarshalEvent(ev)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"dep":[]`) || strings.Contains(string(b), `"dep":null`) {
			t.Fatalf("%s event: %s", ev.Type(), b)
		}
	}
}

// TestControllerCheckCancelled: a check the caller cancels reports the
// cancellation, not "Ollama is not reachable" — the server did nothing wrong.
func TestControllerCheckCancelled(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st := r.eng.Controller().Check(ctx)
	if !errors.Is(st.Err, context.Canceled) || errors.Is(st.Err, controller.ErrUnreachable) {
		t.Fatalf("status = %+v, want context.Canceled", st)
	}
	if st := r.eng.Controller().Check(context.Background()); st.Err != nil || !st.Pulled {
		t.Fatalf("a live check after the cancelled one: %+v", st)
	}
}

// TestTextFilesTooLargeOrNotUTF8: a text file too large for a text
// argument fails its task saying so (it used to pass the file's name as
// the text, silently); one in another encoding still gives its words.
func TestTextFilesTooLargeOrNotUTF8(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "book.txt")
	if err := os.WriteFile(big, bytes.Repeat([]byte("All work and no play. "), 20000), 0o644); err != nil {
		t.Fatal(err)
	}
	latin := filepath.Join(dir, "menu.txt")
	if err := os.WriteFile(latin, []byte("Caf\xe9 cr\xe8me, 3 euros"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.planJSON(
		task(1, "summarization", nil, map[string]string{"text": big}),
		task(2, "translation", nil, map[string]string{"text": latin}),
	)
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "summarize the book, translate the menu", Attachments: []string{big, latin}}); err != nil {
		t.Fatal(err)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusError || !strings.Contains(e.Error, "at most 256 KB") || !strings.Contains(e.Error, "split it") {
		t.Fatalf("task 1 = %+v", e)
	}
	if e := r.taskEnd(2); e.Status != pipeline.StatusOK {
		t.Fatalf("task 2 = %+v", e)
	}
	var taskInputs []string
	var respond string
	for _, req := range r.chatRequests() {
		last := req.Messages[len(req.Messages)-1].Content
		switch stage(&req) {
		case "task":
			taskInputs = append(taskInputs, last)
		case "respond":
			respond = last
		}
	}
	if len(taskInputs) != 1 || !strings.Contains(taskInputs[0], "Caf\uFFFD cr\uFFFDme, 3 euros") {
		t.Fatalf("controller task inputs = %q, want only the menu's words", taskInputs)
	}
	if !strings.Contains(respond, big+" is attached but not quoted") {
		t.Fatalf("the response stage is not told why the book is not quoted: %q", respond)
	}
}

// TestAnnotationFailureIsReported: when the boxes cannot be drawn on the
// image, the detection result stands and a progress event says why no
// annotated image came (it used to be dropped without a word).
func TestAnnotationFailureIsReported(t *testing.T) {
	t.Parallel()
	ep := &scriptedEndpoint{kind: skills.EndpointHuggingFace, infer: func(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
		return endpoints.Result{Text: "1 object: cat (0.90) at [1,1,4,4]",
			Data: json.RawMessage(`[{"label":"cat","score":0.9,"box":{"xmin":1,"ymin":1,"xmax":4,"ymax":4}}]`)}, nil
	}}
	r := newRig(t, withEndpoints(ep))
	img := filepath.Join(t.TempDir(), "scan.png")
	if err := os.WriteFile(img, []byte("not really a PNG"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.planJSON(task(1, "object-detection", nil, map[string]string{"image": img}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "find the cat in " + img}); err != nil {
		t.Fatal(err)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusOK || len(e.Files) != 0 {
		t.Fatalf("task_end = %+v", e)
	}
	var said bool
	for _, p := range eventsOf[pipeline.TaskProgressEvent](r) {
		said = said || p.ID == 1 && strings.Contains(p.Message, "annotated image could not be drawn") && strings.Contains(p.Message, "scan.png")
	}
	if !said {
		t.Fatalf("no progress event explains the missing annotated image: %+v", eventsOf[pipeline.TaskProgressEvent](r))
	}
}

// TestDiscoveryFailureIsExplained: when Ollama cannot list its models, the
// models it would offer are not silently absent — the model event says why.
func TestDiscoveryFailureIsExplained(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	expert := ollama.New(ollama.Options{Host: dead.URL, HTTPClient: http.DefaultClient})
	r := newRig(t, withEndpoints(expert))
	ev, err := r.eng.Preview(context.Background(), "image-to-text", pipeline.Constraints{})
	if err != nil {
		t.Fatal(err)
	}
	var why string
	for _, x := range ev.Excluded {
		if x.ID == "(ollama models)" {
			why = x.Reason
		}
	}
	if !strings.Contains(why, "ollama serve") {
		t.Fatalf("excluded = %+v, want the Ollama models explained", ev.Excluded)
	}
}

// panickyEndpoint's Check panics for one task: a bug in an endpoint met
// during selection, not execution.
type panickyEndpoint struct {
	scriptedEndpoint
	task string
}

func (e *panickyEndpoint) Check(ctx context.Context, task, model string) error {
	if task == e.task {
		var m map[string]int
		m["boom"]++ //nolint:staticcheck // SA5000: the bug this endpoint stands for
	}
	return nil
}

// TestPanicInSelectionFailsOnlyItsTask: a panic while choosing a task's
// model fails that task with a message saying so; the other task runs and
// the turn answers.
func TestPanicInSelectionFailsOnlyItsTask(t *testing.T) {
	t.Parallel()
	ep := &panickyEndpoint{task: "object-detection", scriptedEndpoint: scriptedEndpoint{kind: skills.EndpointHuggingFace,
		infer: func(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
			return endpoints.Result{Text: "a cat"}, nil
		}}}
	r := newRig(t, withEndpoints(ep))
	img := r.image("a.png", 8, 8)
	r.planJSON(
		task(1, "object-detection", nil, map[string]string{"image": img}),
		task(2, "image-classification", nil, map[string]string{"image": img}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "look at it"})
	if err != nil {
		t.Fatalf("the turn failed: %v", err)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusError || !strings.Contains(e.Error, "bug in Chorus") {
		t.Fatalf("task_end 1 = %+v", e)
	}
	if e := r.taskEnd(2); e.Status != pipeline.StatusOK {
		t.Fatalf("task_end 2 = %+v", e)
	}
	if rep.Answer == "" {
		t.Fatal("no answer")
	}
}

// TestSelectionPromptClipsArguments: a huge argument does not make a huge
// selection prompt.
func TestSelectionPromptClipsArguments(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 20, 20)
	r.hf.Model("test/vqa-big", "visual-question-answering")
	r.hf.Model("test/vqa-small", "visual-question-answering")
	// As long as a plan within plan_tokens can write it (the controller
	// cuts a reply past its limit), one "word" for the fake's token count.
	huge := "what-" + strings.Repeat("x", 6<<10)
	var size int
	r.pick = func(req *api.ChatRequest) fakeollama.Reply {
		size = len(req.Messages[len(req.Messages)-1].Content)
		return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"x"}]}`}
	}
	r.planJSON(task(1, "visual-question-answering", nil, map[string]string{"image": img, "text": huge}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "answer it"}); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	got := size
	r.mu.Unlock()
	if got == 0 || got > 4000 {
		t.Fatalf("the selection prompt is %d bytes (plan %+v)", got, eventsOf[pipeline.PlanEvent](r))
	}
}

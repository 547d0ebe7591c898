package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestOneSelectionCallForManyTasks: every task that needs the controller's
// choice goes into one call, whatever the plan's size; the reply names
// candidates by number, per task.
func TestOneSelectionCallForManyTasks(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	a, b, c := r.image("a.png", 20, 20), r.image("b.png", 20, 20), r.image("c.png", 20, 20)
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/captioner-small", "image-to-text")
	var asked []string
	r.pick = func(req *api.ChatRequest) fakeollama.Reply {
		asked = append(asked, req.Messages[len(req.Messages)-1].Content)
		// Task 1 keeps the top-ranked, task 2 takes the second, task 3
		// is forgotten by the controller.
		return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"bigger"},{"id":2,"pick":2,"reason":"smaller and enough"}]}`}
	}
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": a}),
		task(2, "image-to-text", nil, map[string]string{"image": b}),
		task(3, "image-to-text", nil, map[string]string{"image": c}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption all three"})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.calls("select"); n != 1 {
		t.Fatalf("%d selection calls, want 1", n)
	}
	if len(rep.Calls) != 3 || rep.Calls[1].Stage != pipeline.StageSelection {
		b, _ := json.Marshal(rep.Calls)
		t.Fatalf("the report should list the plan, selection and answer calls: %s", b)
	}
	if n := r.calls("plan") + r.calls("select") + r.calls("respond") + r.calls("task"); n != 3 {
		t.Fatalf("%d controller calls, want 3", n)
	}
	r.mu.Lock() // the fake wrote it under the rig's lock
	prompt := asked[0]
	r.mu.Unlock()
	for _, want := range []string{"Task 1 image-to-text", "Task 2 image-to-text", "Task 3 image-to-text", "1. test/captioner-big", "2. test/captioner-small"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the selection prompt lacks %q:\n%s", want, prompt)
		}
	}
	for id, want := range map[int][2]string{
		1: {"test/captioner-big", "controller choice"},
		2: {"test/captioner-small", "controller choice"},
		3: {"test/captioner-big", "fallback: top-ranked"},
	} {
		m := r.model(id)
		if m.Model != want[0] || m.Decided != want[1] {
			t.Errorf("task %d: %s (%s: %s), want %s by %s", id, m.Model, m.Decided, m.Reason, want[0], want[1])
		}
	}
	if m := r.model(2); m.Reason != "smaller and enough" {
		t.Errorf("task 2's reason = %q", m.Reason)
	}
	if m := r.model(3); !strings.Contains(m.Reason, "named no model") {
		t.Errorf("task 3's fallback should say why: %q", m.Reason)
	}
}

// TestDecidedTasksDoNotWaitForSelection: a task with one candidate runs
// while the controller is still choosing for another.
func TestDecidedTasksDoNotWaitForSelection(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 20, 20)
	r.hf.Model("test/voice", "text-to-speech")
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/captioner-small", "image-to-text")
	var sawVoice atomic.Bool
	r.pick = func(req *api.ChatRequest) fakeollama.Reply {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) && len(r.hf.RequestsFor("test/voice")) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		sawVoice.Store(len(r.hf.RequestsFor("test/voice")) > 0)
		return fakeollama.Reply{Content: `{"choices":[{"id":2,"pick":1,"reason":"fine"}]}`}
	}
	r.planJSON(
		task(1, "text-to-speech", nil, map[string]string{"text": "hello there"}),
		task(2, "image-to-text", nil, map[string]string{"image": img}),
	)
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "say hello and caption " + img}); err != nil {
		t.Fatal(err)
	}
	if !sawVoice.Load() {
		t.Fatal("the one-candidate task waited for the selection call")
	}
	if r.taskEnd(1).Status != pipeline.StatusOK || r.taskEnd(2).Status != pipeline.StatusOK {
		t.Fatalf("both tasks should run: %+v %+v", r.taskEnd(1), r.taskEnd(2))
	}
	// The model events still precede each task's start.
	types := r.typesInOrder()
	idx := func(typ string, id int) int {
		n := 0
		for i, ty := range types {
			if ty == typ {
				n++
				if n == id {
					return i
				}
			}
		}
		return -1
	}
	if idx("model", 1) > idx("task_start", 1) {
		t.Errorf("a model event came after a task start: %v", types)
	}
}

// TestTasksStartOncePicksAreDecoded: the selection reply gives every pick
// before any reason, and each task starts the moment its pick is decoded —
// all of them before the controller writes a reason (with one local
// Ollama, reasons take seconds); the reasons then arrive as model_reason
// events and reach the report.
func TestTasksStartOncePicksAreDecoded(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 20, 20)
	r.hf.Model("test/captioner-big", "image-to-text")
	release1 := r.hf.Model("test/captioner-small", "image-to-text").Hold()
	r.hf.Model("test/vqa-small", "visual-question-answering")
	release2 := r.hf.Model("test/vqa-big", "visual-question-answering").Hold()
	defer release1()
	defer release2()
	var bothBeforeReasons atomic.Bool
	r.pick = func(req *api.ChatRequest) fakeollama.Reply {
		ch := make(chan string)
		go func() {
			defer close(ch)
			ch <- `{"picks":{"1":2,`
			ch <- `"2":1},"reasons":{`
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			bothBeforeReasons.Store(r.hf.WaitInFlight(ctx, 2) == nil)
			release1()
			release2()
			ch <- `"1":"small is enough","2":"first"}}`
		}()
		return fakeollama.Reply{Stream: ch}
	}
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "visual-question-answering", nil, map[string]string{"image": img, "text": "what colour is it?"}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and tell me what colour it is"})
	if err != nil {
		t.Fatal(err)
	}
	if !bothBeforeReasons.Load() {
		t.Fatal("the tasks did not both run before the reasons were written")
	}
	if got := r.model(1); got.Model != "test/captioner-small" || got.Decided != "controller choice" {
		t.Errorf("task 1's choice = %s (%s), want test/captioner-small by the controller", got.Model, got.Decided)
	}
	if got := r.model(2); got.Model != "test/vqa-big" || got.Decided != "controller choice" {
		t.Errorf("task 2's choice = %s (%s), want test/vqa-big by the controller", got.Model, got.Decided)
	}
	reasons := map[int]string{}
	for _, e := range eventsOf[pipeline.ModelReasonEvent](r) {
		reasons[e.ID] = e.Reason
	}
	if reasons[1] != "small is enough" || reasons[2] != "first" {
		t.Errorf("model_reason events = %v", reasons)
	}
	if rep.Tasks[0].Reason != "small is enough" || rep.Tasks[1].Reason != "first" {
		t.Errorf("report reasons = %q, %q", rep.Tasks[0].Reason, rep.Tasks[1].Reason)
	}
	if r.calls("select") != 1 {
		t.Errorf("selection calls = %d, want 1", r.calls("select"))
	}
	// The schema holds the picks before the reasons, each task to its own
	// candidates' numbers, and the reasons short.
	sel := r.chatRequests()[1]
	if stage(&sel) != "select" {
		t.Fatalf("second call is %s", stage(&sel))
	}
	f := string(sel.Format)
	if i, j := strings.Index(f, `"picks"`), strings.Index(f, `"reasons"`); i < 0 || j < i {
		t.Errorf("schema does not put picks before reasons: %s", f)
	}
	if !strings.Contains(f, `"required":["picks","reasons"]`) || !strings.Contains(f, `"1":{"enum":[1,2],"type":"integer"}`) || !strings.Contains(f, `"maxLength":40`) {
		t.Errorf("schema = %s", f)
	}
	for id := 1; id <= 2; id++ {
		if r.taskEnd(id).Status != pipeline.StatusOK {
			t.Errorf("task %d: %+v", id, r.taskEnd(id))
		}
	}
}

// TestSelectionAuto: with selection: auto a turn whose request states no
// preference runs the skill's curated default without a selection call,
// and one that weighs models asks the controller, whose choice runs. (The
// modes' rules are the selection stage's table, TestSelectionModes.)
func TestSelectionAuto(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		mode    pipeline.Selection
		request string
		task    string
		asks    bool
		model   string
		decided string
	}{
		{"no preference, curated default", pipeline.SelectAuto, "how far away is everything in ", "depth-estimation", false, "test/depth-curated", "ranked"},
		{"a preference word", pipeline.SelectAuto, "use the most accurate model to estimate the depth of ", "depth-estimation", true, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Selection: c.mode}))
			img := r.image("a.png", 20, 20)
			for _, id := range []string{"test/depth-popular", "test/depth-curated"} {
				r.hf.Model(id, "depth-estimation")
			}
			for _, id := range []string{"test/captioner-big", "test/captioner-small"} {
				r.hf.Model(id, "image-to-text")
			}
			r.pick = func(*api.ChatRequest) fakeollama.Reply {
				return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":2,"reason":"the controller's pick"}]}`}
			}
			r.planJSON(task(1, c.task, nil, map[string]string{"image": img}))
			if _, err := r.run(context.Background(), pipeline.Turn{Request: c.request + img}); err != nil {
				t.Fatal(err)
			}
			if got := r.calls("select") == 1; got != c.asks {
				t.Fatalf("selection call made = %v, want %v (%+v)", got, c.asks, r.model(1))
			}
			me := r.model(1)
			if c.asks {
				if me.Decided != "controller choice" {
					t.Errorf("decided %q (%s), want the controller's choice", me.Decided, me.Reason)
				}
				return
			}
			if me.Model != c.model || me.Decided != c.decided || me.Reason == "" {
				t.Errorf("model %s decided %q (%s), want %s decided %q with a reason", me.Model, me.Decided, me.Reason, c.model, c.decided)
			}
			if r.taskEnd(1).Status != pipeline.StatusOK {
				t.Errorf("task: %+v", r.taskEnd(1))
			}
		})
	}
}

// TestFanOutRunsTogetherUnderControllerSelection: with selection:
// controller (HuggingGPT's behaviour) every task of a four-task fan-out
// waits for the one selection call, and all four run at the same time
// once the picks are decoded — before the controller writes a reason.
func TestFanOutRunsTogetherUnderControllerSelection(t *testing.T) {
	t.Parallel()
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Selection: pipeline.SelectController}))
	img := r.image("a.png", 20, 20)
	var releases []func()
	for _, m := range []struct{ id, task string }{
		{"test/captioner-big", "image-to-text"}, {"test/vqa-big", "visual-question-answering"},
		{"test/depth-curated", "depth-estimation"}, {"test/depth-popular", "depth-estimation"},
	} {
		releases = append(releases, r.hf.Model(m.id, m.task).Hold())
	}
	release := func() {
		for _, f := range releases {
			f()
		}
	}
	defer release()
	var together atomic.Bool
	r.pick = func(req *api.ChatRequest) fakeollama.Reply {
		ch := make(chan string)
		go func() {
			defer close(ch)
			ch <- `{"picks":{"1":1,"2":1,"3":1,"4":2},"reasons":{`
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			together.Store(r.hf.WaitInFlight(ctx, 4) == nil)
			release()
			ch <- `"1":"a","2":"b","3":"c","4":"d"}}`
		}()
		return fakeollama.Reply{Stream: ch}
	}
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "visual-question-answering", nil, map[string]string{"image": img, "text": "what is it?"}),
		task(3, "depth-estimation", nil, map[string]string{"image": img}),
		task(4, "depth-estimation", nil, map[string]string{"image": img}),
	)
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "caption, ask and estimate the depth twice"}); err != nil {
		t.Fatal(err)
	}
	if !together.Load() {
		t.Fatalf("the four tasks did not run at the same time before the reasons (at most %d at once)", r.hf.MaxInFlight())
	}
	if r.calls("select") != 1 {
		t.Errorf("selection calls = %d", r.calls("select"))
	}
	for id := 1; id <= 4; id++ {
		if e := r.taskEnd(id); e.Status != pipeline.StatusOK {
			t.Errorf("task %d = %+v", id, e)
		}
	}
}

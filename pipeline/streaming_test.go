package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"go.uber.org/goleak"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// Streaming dispatch: a task starts while the controller is still writing
// the rest of the plan, when its object is complete, valid on its own and
// its inputs are done; the final plan settles what ran.

// orderedPlan writes a plan as a model under the plan schema does:
// constraints first, then each task's fields in the schema's order.
func orderedPlan(constraints string, tasks ...map[string]any) (head string, objs []string) {
	for _, t := range tasks {
		args, _ := json.Marshal(t["args"])
		dep, _ := json.Marshal(t["dep"])
		objs = append(objs, fmt.Sprintf(`{"task":%q,"id":%d,"dep":%s,"args":%s}`, t["task"], t["id"], dep, args))
	}
	return `{"constraints":` + constraints + `,"tasks":[`, objs
}

// streamedPlan returns a planning reply fed by the test: each string sent
// is one chunk of the reply, and closing the channel ends it.
func streamedPlan() (fakeollama.Reply, chan<- string) {
	ch := make(chan string)
	return fakeollama.Reply{Stream: ch}, ch
}

// Tasks start while the plan streams, in the schema's shortest form (no
// constraints, no ids: the first key is "tasks") as in the older one
// (constraints first, every field spelled out).
func TestTasksStartWhileThePlanStreams(t *testing.T) {
	t.Parallel()
	t.Run("shortest", func(t *testing.T) {
		tasksStartWhileThePlanStreams(t, func(img string) (string, []string) {
			args, _ := json.Marshal(map[string]string{"image": img})
			return `{"tasks":[`, []string{`{"task":"image-classification","args":` + string(args) + `}`,
				`{"task":"object-detection","args":` + string(args) + `}`}
		})
	})
	t.Run("constraints first", func(t *testing.T) {
		tasksStartWhileThePlanStreams(t, func(img string) (string, []string) {
			return orderedPlan(`{}`,
				task(1, "image-classification", nil, map[string]string{"image": img}),
				task(2, "object-detection", nil, map[string]string{"image": img}))
		})
	})
}

func tasksStartWhileThePlanStreams(t *testing.T, write func(img string) (head string, objs []string)) {
	r := newRig(t)
	img := r.image("room.png", 32, 32)
	release := r.hf.Model("test/classifier", "image-classification").Hold()
	defer release()
	r.hf.Model("test/detector", "object-detection")
	head, objs := write(img)
	reply, plan := streamedPlan()
	r.plans = []fakeollama.Reply{reply}

	done := make(chan error, 1)
	go func() {
		_, err := r.run(context.Background(), pipeline.Turn{Request: "classify and detect"})
		done <- err
	}()
	plan <- head
	plan <- objs[0]
	// The plan is not finished — task 2 is still to come — yet task 1's
	// expert is already asked.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.hf.WaitInFlight(ctx, 1); err != nil {
		t.Fatalf("task 1 did not start while the plan was still streaming: %v", err)
	}
	plan <- "," + objs[1]
	plan <- "]}"
	close(plan)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	types := r.typesInOrder()
	if i, j := slices.Index(types, "task_start"), slices.Index(types, "plan"); i < 0 || j < 0 || i > j {
		t.Fatalf("task 1 should start before the final plan event: %v", types)
	}
	arrived := eventsOf[pipeline.PlanTaskEvent](r)
	if len(arrived) != 2 || arrived[0].Task.ID != 1 || arrived[1].Task.ID != 2 || arrived[0].Task.Args["image"] != img {
		t.Fatalf("plan_task events = %+v", arrived)
	}
	if n := len(eventsOf[pipeline.TaskWithdrawnEvent](r)); n != 0 {
		t.Fatalf("%d tasks withdrawn from a plan that kept them", n)
	}
	for id := 1; id <= 2; id++ {
		if e := r.taskEnd(id); e.Status != pipeline.StatusOK {
			t.Fatalf("task %d = %+v", id, e)
		}
		if n := len(r.hf.RequestsFor(map[int]string{1: "test/classifier", 2: "test/detector"}[id])); n != 1 {
			t.Fatalf("task %d's expert was asked %d times", id, n)
		}
	}
	// Each task once in the events of the final plan, one model event each.
	if n := len(eventsOf[pipeline.ModelEvent](r)); n != 2 {
		t.Fatalf("model events = %d", n)
	}
	if got := r.calls("plan") + r.calls("select") + r.calls("respond") + r.calls("task"); got != 2 {
		t.Fatalf("controller calls = %d, want the plan and the answer", got)
	}
}

// A task whose input comes from a task still running starts when that one
// finishes, even while the plan streams; one that names a task not yet
// written waits for the final plan.
func TestStreamedChainWaitsForItsInput(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("dog.png", 40, 30)
	release := r.hf.Model("test/captioner-big", "image-to-text").Hold()
	defer release()
	r.hf.Model("test/voice", "text-to-speech")
	var atPick atomic.Int32 // expert calls and task starts when the controller was asked to choose
	atPick.Store(-1)
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		atPick.Store(int32(len(r.hf.Requests()) + len(eventsOf[pipeline.TaskStartEvent](r))))
		return fakeollama.Reply{Content: `{"picks":{"1":1}}`}
	}
	head, objs := orderedPlan(`{}`,
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}))
	reply, plan := streamedPlan()
	r.plans = []fakeollama.Reply{reply}
	done := make(chan error, 1)
	go func() {
		_, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and read it aloud"})
		done <- err
	}()
	plan <- head + objs[0] + "," + objs[1]
	// Both tasks are offered while the plan streams...
	waitFor(t, "both tasks offered early", func() bool { return len(eventsOf[pipeline.PlanTaskEvent](r)) == 2 })
	plan <- "]}"
	close(plan)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// ...but task 1 has two candidates and the default controller
	// selection: its model is chosen in the selection call after the plan
	// (the final plan waits for every early selection), and nothing ran
	// before that call.
	if n := atPick.Load(); n != 0 {
		t.Fatalf("%d expert calls and task starts before the controller chose (-1: it was never asked)", n)
	}
	at := map[string]int{}
	r.evMu.Lock()
	for i, ev := range r.events {
		switch e := ev.(type) {
		case pipeline.PlanEvent:
			at["plan"] = i
		case pipeline.ModelEvent:
			if e.ID == 1 {
				at["model"] = i
			}
		case pipeline.TaskStartEvent:
			if e.ID == 1 {
				at["start"] = i
			}
		}
	}
	r.evMu.Unlock()
	if len(at) != 3 || at["plan"] > at["model"] || at["model"] > at["start"] {
		t.Fatalf("task 1's model was chosen or it started before the final plan: event positions %v", at)
	}
	if e := r.taskEnd(2); e.Status != pipeline.StatusOK {
		t.Fatalf("task 2 = %+v", e)
	}
	if r.calls("select") != 1 {
		t.Fatalf("selection calls = %d", r.calls("select"))
	}
}

// The final plan withdraws an early task it changed: the first reply was
// cut off and the re-asked plan gives task 1 another image. The early run
// is cancelled and its result not used — the event, the note and the
// report say which ran.
func TestEarlyTaskWithdrawnWhenThePlanChanges(t *testing.T) {
	// Not parallel: goleak counts every goroutine of the process.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var logged bytes.Buffer
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true,
		Logger: slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo}))}))
	first := r.image("first.png", 16, 16)
	second := r.image("second.png", 32, 32)
	r.hf.Model("test/classifier", "image-classification").Respond(func(_ *http.Request, body []byte) (int, string, []byte) {
		label := "from the second image"
		if len(body) < 100 {
			label = "from the first image"
		}
		return 200, "application/json", []byte(`[{"label":"` + label + `","score":0.9}]`)
	})
	head, objs := orderedPlan(`{}`, task(1, "image-classification", nil, map[string]string{"image": first}))
	_, again := orderedPlan(`{}`, task(1, "image-classification", nil, map[string]string{"image": second}))
	r.plans = []fakeollama.Reply{
		{Content: head + objs[0] + `,{"task":"image-to-text","id":2,"dep":[],"args":{"image":"` + strings.Repeat("x", 300), DoneReason: "length"},
		{Content: head + again[0] + "]}"},
	}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "classify"})
	if err != nil {
		t.Fatal(err)
	}
	w := eventsOf[pipeline.TaskWithdrawnEvent](r)
	if len(w) != 1 || w[0].ID != 1 || !strings.Contains(w[0].Reason, "changed") {
		t.Fatalf("withdrawn events = %+v", w)
	}
	if len(rep.Tasks) != 1 || !strings.Contains(rep.Tasks[0].Result, "second image") || rep.Tasks[0].Args["image"] != second {
		t.Fatalf("report tasks = %+v", rep.Tasks)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, "task 1 (image-classification) started before the plan was complete") && strings.Contains(n, "not used")
	}) {
		t.Fatalf("notes = %q", rep.Notes)
	}
	types := r.typesInOrder()
	if slices.Index(types, "task_withdrawn") > slices.Index(types, "plan") {
		t.Fatalf("task_withdrawn must precede the final plan: %v", types)
	}
	// The log says so too, at info level: an operator reading it sees why
	// a task ran twice.
	var said bool
	for line := range strings.Lines(logged.String()) {
		var rec struct {
			Level, Msg, Task, Why string
			ID                    int
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Level == "INFO" && rec.Msg == "task withdrawn" &&
			rec.ID == 1 && rec.Task == "image-classification" && strings.Contains(rec.Why, "changed") {
			said = true
		}
	}
	if !said {
		t.Fatalf("the log does not say task 1 was withdrawn:\n%s", logged.String())
	}
	r.close()
}

// A plan that writes its tasks before its constraints (a model not held to
// the schema's order) starts nothing early when the request may state a
// limit ("on this machine only"): the constraints might rule out the model
// a task would run on. (Without such words, tasks first means none.)
func TestConstraintsAfterTasksStartNothingEarly(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	r.plans = []fakeollama.Reply{{Content: `{"tasks":[{"task":"image-classification","id":1,"dep":[],"args":{"image":"` + img + `"}}],"constraints":{"local_only":true}}`}}
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "classify, on this machine only"}); err != nil {
		t.Fatal(err)
	}
	if n := len(eventsOf[pipeline.PlanTaskEvent](r)); n != 0 {
		t.Fatalf("%d tasks offered before the constraints were known", n)
	}
	if n := len(r.hf.Requests()); n != 0 {
		t.Fatalf("local_only was broken: %d Hugging Face calls", n)
	}
}

// The constraints a streaming plan states first apply to the tasks that
// start early: local_only keeps them off Hugging Face.
func TestEarlyTasksHonourTheConstraints(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	head, objs := orderedPlan(`{"local_only":true}`, task(1, "image-classification", nil, map[string]string{"image": img}))
	r.plans = []fakeollama.Reply{{Content: head + objs[0] + "]}"}}
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "classify, on this machine only"}); err != nil {
		t.Fatal(err)
	}
	if n := len(eventsOf[pipeline.PlanTaskEvent](r)); n != 1 {
		t.Fatalf("plan_task events = %d", n)
	}
	if e := r.taskEnd(1); !e.Skipped || !strings.Contains(e.Error, "local-only") {
		t.Fatalf("task 1 = %+v", e)
	}
	if n := len(r.hf.Requests()); n != 0 {
		t.Fatalf("local_only was broken: %d Hugging Face calls", n)
	}
}

// Plan review keeps today's behaviour: nothing runs before the user
// approves the whole plan.
func TestPlanReviewStartsNothingEarly(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/classifier", "image-classification")
	head, objs := orderedPlan(`{}`, task(1, "image-classification", nil, map[string]string{"image": img}))
	r.plans = []fakeollama.Reply{{Content: head + objs[0] + "]}"}}
	reviewed := false
	_, err := r.run(context.Background(), pipeline.Turn{Request: "classify", Review: func(_ context.Context, p pipeline.Plan) (pipeline.Plan, error) {
		reviewed = true
		if n := len(r.hf.Requests()); n != 0 {
			t.Errorf("%d expert calls before the plan was approved", n)
		}
		return p, nil
	}})
	if err != nil || !reviewed {
		t.Fatalf("err = %v, reviewed = %v", err, reviewed)
	}
	if n := len(eventsOf[pipeline.PlanTaskEvent](r)); n != 0 {
		t.Fatalf("plan_task events under review = %d", n)
	}
}

// A text task the controller does itself waits for the plan to end: the
// controller's one slot is writing it.
func TestEarlyControllerTaskWaitsForThePlan(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	head, objs := orderedPlan(`{}`, task(1, "summarization", nil, map[string]string{"text": "a very long text"}))
	reply, plan := streamedPlan()
	r.plans = []fakeollama.Reply{reply}
	done := make(chan error, 1)
	go func() {
		_, err := r.run(context.Background(), pipeline.Turn{Request: "summarize: a very long text"})
		done <- err
	}()
	plan <- head + objs[0]
	// The task is offered, chosen (the controller itself) and launched
	// while the plan streams; it says it waits for the plan, and it does.
	waitFor(t, "task 1 to wait for the final plan", func() bool {
		for _, ev := range eventsOf[pipeline.DebugEvent](r) {
			if ev.Kind == "wait" && strings.HasPrefix(ev.Content, "task 1 ") {
				return true
			}
		}
		return false
	})
	if n := r.calls("task"); n != 0 {
		t.Fatalf("the controller was asked to do the task while it still wrote the plan")
	}
	plan <- "]}"
	close(plan)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if e := r.taskEnd(1); e.Status != pipeline.StatusOK || e.Endpoint != pipeline.EndpointController {
		t.Fatalf("task 1 = %+v", e)
	}
	reqs := r.chatRequests()
	var stages []string
	for _, q := range reqs {
		stages = append(stages, stage(&q))
	}
	if !slices.Equal(stages, []string{"plan", "task", "respond"}) {
		t.Fatalf("controller calls = %v", stages)
	}
}

// Cancelling the turn while an early task runs and the plan still streams
// stops both; nothing is left running.
func TestCancelWhileEarlyTaskRuns(t *testing.T) {
	// Not parallel: goleak counts every goroutine of the process.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := newRig(t)
	img := r.image("a.png", 16, 16)
	release := r.hf.Model("test/classifier", "image-classification").Hold()
	defer release()
	head, objs := orderedPlan(`{}`, task(1, "image-classification", nil, map[string]string{"image": img}))
	reply, plan := streamedPlan()
	r.plans = []fakeollama.Reply{reply}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.run(ctx, pipeline.Turn{Request: "classify"})
		done <- err
	}()
	plan <- head + objs[0]
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := r.hf.WaitInFlight(wctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled turn returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn did not stop promptly")
	}
	close(plan)
	if e := r.taskEnd(1); !e.Cancelled {
		t.Fatalf("task 1 = %+v", e)
	}
	if n := len(eventsOf[pipeline.TaskWithdrawnEvent](r)); n != 0 {
		t.Fatalf("a cancelled turn withdrew %d tasks: it was the user who stopped them", n)
	}
	r.close()
}

// With a second controller slot (controller.max_concurrent: 2), the pick
// for the first task of a chain is asked while the later tasks are still
// being planned, and the task runs before the plan ends; the task the plan
// ends with gets its own pick after the plan. With one slot (the test
// above) nothing is asked before the plan ends.
func TestSecondSlotPicksWhileThePlanStreams(t *testing.T) {
	t.Parallel()
	r := newRig(t, withSlots(2))
	img := r.image("dog.png", 40, 30)
	release := r.hf.Model("test/captioner-big", "image-to-text").Hold()
	defer release()
	r.hf.Model("test/voice", "text-to-speech")
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"picks":{"1":1},"reasons":{"1":"the larger captioner"}}`}
	}
	reply, plan := streamedPlan()
	r.plans = []fakeollama.Reply{reply}
	done := make(chan error, 1)
	go func() {
		_, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and read it aloud"})
		done <- err
	}()
	args, _ := json.Marshal(map[string]string{"image": img})
	plan <- `{"tasks":[{"task":"image-to-text","args":` + string(args) + `}`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.hf.WaitInFlight(ctx, 1); err != nil {
		t.Fatalf("task 1 did not start while the plan was still streaming: %v", err)
	}
	if n := r.calls("select"); n != 1 {
		t.Fatalf("selection calls before the plan ended = %d", n)
	}
	plan <- `,{"task":"text-to-speech","args":{"text":"<resource>-1"}}]}`
	close(plan)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m := r.model(1); m.Model != "test/captioner-big" || m.Decided != "controller choice" {
		t.Fatalf("task 1's model = %+v", m)
	}
	if e := r.taskEnd(2); e.Status != pipeline.StatusOK {
		t.Fatalf("task 2 = %+v", e)
	}
	// The early pick is a branch: the answer continues after the plan,
	// not after the pick asked before the plan had ended.
	for _, req := range r.chatRequests() {
		if stage(&req) != "respond" {
			continue
		}
		var sawPlan bool
		for _, m := range req.Messages {
			sawPlan = sawPlan || strings.HasPrefix(m.Content, "STAGE: PLAN")
			if strings.HasPrefix(m.Content, "STAGE: SELECT") {
				t.Fatalf("the answer's conversation holds the early pick:\n%v", req.Messages)
			}
		}
		if !sawPlan {
			t.Fatal("the answer's conversation lost the plan")
		}
	}
}

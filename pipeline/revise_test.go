package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// The fifth step (revise.go): a task that fails for good gets one
// revision of the rest of the plan before the answer. The experts are
// scripted to fail on the fake Hugging Face: a model it does not serve
// answers 404, one told to fail answers its status.

// revision is a revision reply of the given tasks, as a model under the
// plan schema writes it.
func revision(tasks ...map[string]any) fakeollama.Reply {
	if tasks == nil {
		tasks = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"constraints": map[string]any{}, "tasks": tasks})
	return fakeollama.Reply{Content: string(b)}
}

func reviseRig(t *testing.T, revise int) *rig {
	return newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Revise: revise}))
}

func TestRevisionFailedVideoBecomesImage(t *testing.T) {
	t.Parallel()
	r := reviseRig(t, 1)
	// No provider serves a text-to-video candidate: every one is a 404.
	r.hf.Model("black-forest-labs/FLUX.1-schnell", "text-to-image")
	r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox in the snow"}))
	r.revisions = []fakeollama.Reply{revision(task(2, "text-to-image", nil, map[string]string{"text": "a fox in the snow"}))}
	r.answer = fakeollama.Reply{Content: "The video could not be made, so here is a picture of a fox in the snow."}

	rep, err := r.run(context.Background(), pipeline.Turn{Request: "make a short video of a fox in the snow"})
	if err != nil {
		t.Fatal(err)
	}
	if end := r.taskEnd(1); end.Status != pipeline.StatusError || end.Skipped {
		t.Fatalf("task 1 should have failed on every candidate: %+v", end)
	}
	end := r.taskEnd(2)
	if end.Status != pipeline.StatusOK || len(end.Files) != 1 || !strings.HasSuffix(end.Files[0], ".jpg") {
		t.Fatalf("the revision's image task: %+v", end)
	}
	if !slices.Contains(rep.Files, end.Files[0]) {
		t.Fatalf("the report's files %v lack the image", rep.Files)
	}
	revs := eventsOf[pipeline.PlanRevisionEvent](r)
	if len(revs) != 1 || len(revs[0].After) != 1 || revs[0].After[0].ID != 1 || revs[0].After[0].Task != "text-to-video" ||
		revs[0].After[0].Error == "" || len(revs[0].Tasks) != 1 || revs[0].Tasks[0].ID != 2 || revs[0].Tasks[0].Task != "text-to-image" {
		t.Fatalf("plan_revision events = %+v", revs)
	}
	if len(rep.Revisions) != 1 || rep.Revisions[0].Tasks[0].ID != 2 || len(rep.Tasks) != 2 || rep.Tasks[1].ID != 2 {
		t.Fatalf("report: revisions %+v, tasks %+v", rep.Revisions, rep.Tasks)
	}
	// Task 1's end, the revision, task 2's start, the answer: in order.
	at := map[string]int{}
	r.evMu.Lock()
	for i, ev := range r.events {
		switch ev := ev.(type) {
		case pipeline.TaskEndEvent:
			at[fmt.Sprint("end", ev.ID)] = i
		case pipeline.TaskStartEvent:
			at[fmt.Sprint("start", ev.ID)] = i
		case pipeline.PlanRevisionEvent:
			at["revision"] = i
		case pipeline.TokenEvent:
			if _, ok := at["token"]; !ok {
				at["token"] = i
			}
		}
	}
	r.evMu.Unlock()
	if !(at["end1"] < at["revision"] && at["revision"] < at["start2"] && at["end2"] < at["token"]) {
		t.Fatalf("events out of order: %v in %v", at, r.typesInOrder())
	}
	if r.calls("revise") != 1 || r.calls("respond") != 1 {
		t.Fatalf("controller calls: revise %d, respond %d", r.calls("revise"), r.calls("respond"))
	}
	if !slices.ContainsFunc(rep.Calls, func(c pipeline.ControllerCall) bool { return c.Stage == pipeline.StageRevision }) {
		t.Fatalf("the report's controller calls lack the revision: %+v", rep.Calls)
	}
	if !strings.Contains(rep.Answer, "Revised after task 1 (text-to-video) failed") || !strings.Contains(rep.Answer, "added task 2 (text-to-image)._\n") {
		t.Fatalf("the workflow section does not say the revision:\n%s", rep.Answer)
	}

	// The revision continues the turn's conversation: the plan's exchange
	// is in it, what failed is said, the results are quoted as data.
	r.mu.Lock()
	ask := r.requests["revise"][0]
	answer := r.requests["respond"][0]
	r.mu.Unlock()
	last := ask.Messages[len(ask.Messages)-1].Content
	if !strings.HasPrefix(last, "STAGE: REVISE") || !strings.Contains(last, "Failed for good (every model tried, or none could run it): task 1 (text-to-video)") ||
		!strings.Contains(last, "they are numbered from 2 in the order written") || !strings.Contains(last, "<data>") {
		t.Fatalf("revision prompt:\n%s", last)
	}
	if !slices.ContainsFunc(ask.Messages, func(m api.Message) bool { return strings.HasPrefix(m.Content, "STAGE: PLAN") }) {
		t.Fatal("the revision call does not continue the plan's conversation")
	}
	if len(ask.Format) == 0 || !strings.Contains(string(ask.Format), `"tasks"`) {
		t.Fatalf("the revision is not asked under the plan schema: %s", ask.Format)
	}
	if ask.Messages[0].Content != answer.Messages[0].Content {
		t.Fatal("the head differs between the revision and the answer")
	}
	if !slices.ContainsFunc(answer.Messages, func(m api.Message) bool { return strings.HasPrefix(m.Content, "STAGE: REVISE") }) {
		t.Fatal("the answer does not continue after the revision")
	}
	if got := answer.Messages[len(answer.Messages)-1].Content; !strings.Contains(got, "Task 1 failed, so the plan was revised: task 2 were added") {
		t.Fatalf("the answer prompt does not say what the revision added:\n%s", got)
	}
}

func TestRevisionOfFailedChainHead(t *testing.T) {
	t.Parallel()
	// The revision asks a VQA model instead and reads its answer aloud —
	// written as the plan schema has it (no ids: numbered on from the
	// plan's, 3 and 4), or, as older models do, with the plan's ids
	// again, which are taken and renumbered.
	placed := fakeollama.Reply{Content: `{"tasks":[{"task":"visual-question-answering","args":{"image":"IMG","text":"What does this picture show?"}},` +
		`{"task":"text-to-speech","args":{"text":"<resource>-3"}}]}`}
	for name, reply := range map[string]func(img string) fakeollama.Reply{
		"numbered by place": func(img string) fakeollama.Reply {
			return fakeollama.Reply{Content: strings.ReplaceAll(placed.Content, "IMG", img)}
		},
		"the plan's ids again": func(img string) fakeollama.Reply {
			return revision(
				task(1, "visual-question-answering", nil, map[string]string{"image": img, "text": "What does this picture show?"}),
				task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}))
		},
	} {
		t.Run(name, func(t *testing.T) { revisedChainHead(t, reply) })
	}
}

func revisedChainHead(t *testing.T, reply func(img string) fakeollama.Reply) {
	r := reviseRig(t, 1)
	img := r.image("dog.png", 40, 30)
	// Both captioners fail: the chain's head fails for good and its
	// reader is skipped.
	r.hf.Model("test/captioner-big", "image-to-text").Status(http.StatusInternalServerError, "CUDA out of memory")
	r.hf.Model("test/captioner-small", "image-to-text").Status(http.StatusInternalServerError, "CUDA out of memory")
	r.hf.Model("test/vqa-small", "visual-question-answering")
	r.hf.Model("test/voice", "text-to-speech")
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}),
	)
	r.revisions = []fakeollama.Reply{reply(img)}

	rep, err := r.run(context.Background(), pipeline.Turn{Request: "describe " + img + " and read it aloud"})
	if err != nil {
		t.Fatal(err)
	}
	if end := r.taskEnd(2); !end.Skipped || !strings.Contains(end.Error, "task 1 (image-to-text) failed") {
		t.Fatalf("the chain's second task should have been skipped: %+v", end)
	}
	revs := eventsOf[pipeline.PlanRevisionEvent](r)
	if len(revs) != 1 || len(revs[0].After) != 1 || revs[0].After[0].ID != 1 {
		t.Fatalf("the revision answers the failed head only, not its skipped reader: %+v", revs)
	}
	// Ids 1 and 2 are the plan's: the revision's tasks are 3 and 4, and 4
	// reads 3's output, not the failed task 1's.
	got := revs[0].Tasks
	if len(got) != 2 || got[0].ID != 3 || got[0].Task != "visual-question-answering" || got[1].ID != 4 ||
		!slices.Equal(got[1].Dep, []int{3}) || got[1].Args["text"] != "<resource>-3" {
		t.Fatalf("revised tasks = %+v (notes %v)", got, revs[0].Notes)
	}
	answer, speech := r.taskEnd(3), r.taskEnd(4)
	if answer.Status != pipeline.StatusOK || speech.Status != pipeline.StatusOK || len(speech.Files) != 1 {
		t.Fatalf("revised chain: %+v / %+v", answer, speech)
	}
	tts := r.hf.RequestsFor("test/voice")
	if len(tts) != 1 || answer.Result == "" || !strings.Contains(string(tts[0].Body), answer.Result) {
		t.Fatalf("text-to-speech did not read the VQA answer %q", answer.Result)
	}
	r.mu.Lock()
	last := r.requests["revise"][0].Messages[len(r.requests["revise"][0].Messages)-1].Content
	r.mu.Unlock()
	if !strings.Contains(last, "Not run, since they needed a failed task: task 2 (text-to-speech)") || !strings.Contains(last, "CUDA out of memory") ||
		!strings.Contains(last, "numbered from 3") {
		t.Fatalf("the revision prompt does not say what failed and what it took with it:\n%s", last)
	}
	if len(rep.Tasks) != 4 || !strings.Contains(rep.Answer, "Revised after task 1 (image-to-text) failed") {
		t.Fatalf("report tasks %d, answer:\n%s", len(rep.Tasks), rep.Answer)
	}
}

func TestRevisionEmpty(t *testing.T) {
	t.Parallel()
	r := reviseRig(t, 1)
	r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox"}))
	r.revisions = []fakeollama.Reply{revision()}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "a video of a fox"})
	if err != nil {
		t.Fatal(err)
	}
	revs := eventsOf[pipeline.PlanRevisionEvent](r)
	if len(revs) != 1 || len(revs[0].Tasks) != 0 || revs[0].Tasks == nil {
		t.Fatalf("an empty revision is still said, with tasks []: %+v", revs)
	}
	if b, _ := pipeline.MarshalEvent(revs[0]); !strings.Contains(string(b), `"type":"plan_revision","after":[{"id":1,"task":"text-to-video"`) ||
		!strings.Contains(string(b), `"tasks":[]`) {
		t.Fatalf("plan_revision JSON = %s", b)
	}
	if len(rep.Tasks) != 1 || len(eventsOf[pipeline.TaskStartEvent](r)) != 1 {
		t.Fatalf("nothing should run after an empty revision: %+v", rep.Tasks)
	}
	if !strings.Contains(rep.Answer, "Revised after task 1 (text-to-video) failed") || !strings.Contains(rep.Answer, "the controller found no other way") {
		t.Fatalf("answer:\n%s", rep.Answer)
	}
	r.mu.Lock()
	got := r.requests["respond"][0].Messages
	r.mu.Unlock()
	if !strings.Contains(got[len(got)-1].Content, "After task 1 failed, no other way to serve the request was found.") {
		t.Fatalf("answer prompt:\n%s", got[len(got)-1].Content)
	}
}

func TestRevisionWhoseTasksFailToo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		revise int
		calls  int
	}{{1, 1}, {2, 2}} {
		r := reviseRig(t, tc.revise)
		// No text-to-image candidate is served either.
		r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox"}))
		r.revisions = []fakeollama.Reply{
			revision(task(2, "text-to-image", nil, map[string]string{"text": "a fox"})),
			revision(),
		}
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "a video of a fox"})
		if err != nil {
			t.Fatal(err)
		}
		if end := r.taskEnd(2); end.Status != pipeline.StatusError {
			t.Fatalf("revise=%d: task 2 = %+v", tc.revise, end)
		}
		if r.calls("revise") != tc.calls || len(rep.Revisions) != tc.calls {
			t.Fatalf("planner.revise %d: %d revision calls, %d revisions", tc.revise, r.calls("revise"), len(rep.Revisions))
		}
		if tc.calls == 2 {
			// The second revision answers only the failure the first one
			// did not: task 2.
			if after := rep.Revisions[1].After; len(after) != 1 || after[0].ID != 2 {
				t.Fatalf("second revision answers %+v", after)
			}
		}
	}
}

func TestRevisionCancelled(t *testing.T) {
	t.Parallel()
	t.Run("while the controller revises", func(t *testing.T) {
		r := reviseRig(t, 1)
		r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox"}))
		r.revisions = []fakeollama.Reply{{Content: `{"constraints":{},"tasks":[`, Stall: true}}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		asked := make(chan struct{})
		go func() {
			<-asked
			cancel()
		}()
		var once bool
		rep, err := r.eng.Run(ctx, pipeline.Turn{Request: "a video of a fox"}, func(ev pipeline.Event) {
			if s, ok := ev.(pipeline.DebugEvent); ok && s.Stage == pipeline.StageRevision && s.Kind == "prompt" && !once {
				once = true
				close(asked)
			}
			r.evMu.Lock()
			r.events = append(r.events, ev)
			r.evMu.Unlock()
		})
		if !errors.Is(err, pipeline.ErrCancelled) {
			t.Fatalf("err = %v", err)
		}
		if r.calls("respond") != 0 || len(rep.Revisions) != 0 || len(eventsOf[pipeline.PlanRevisionEvent](r)) != 0 {
			t.Fatalf("a cancelled revision answers nothing: respond %d, revisions %+v", r.calls("respond"), rep.Revisions)
		}
		errs := eventsOf[pipeline.ErrorEvent](r)
		if len(errs) == 0 || !errs[len(errs)-1].Fatal || errs[len(errs)-1].Stage != pipeline.StageRevision {
			t.Fatalf("error events = %+v", errs)
		}
	})
	t.Run("while the revision's tasks run", func(t *testing.T) {
		r := reviseRig(t, 1)
		release := r.hf.Model("black-forest-labs/FLUX.1-schnell", "text-to-image").Hold()
		defer release()
		r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox"}))
		r.revisions = []fakeollama.Reply{revision(task(2, "text-to-image", nil, map[string]string{"text": "a fox"}))}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rep, err := r.eng.Run(ctx, pipeline.Turn{Request: "a video of a fox"}, func(ev pipeline.Event) {
			if s, ok := ev.(pipeline.TaskStartEvent); ok && s.ID == 2 {
				cancel()
			}
			r.evMu.Lock()
			r.events = append(r.events, ev)
			r.evMu.Unlock()
		})
		if !errors.Is(err, pipeline.ErrCancelled) {
			t.Fatalf("err = %v", err)
		}
		if end := r.taskEnd(2); !end.Cancelled {
			t.Fatalf("task 2 = %+v", end)
		}
		if len(rep.Revisions) != 1 || r.calls("respond") != 0 || r.calls("revise") != 1 {
			t.Fatalf("revisions %+v, respond %d, revise %d", rep.Revisions, r.calls("respond"), r.calls("revise"))
		}
	})
}

// TestNoRevision: a turn that goes well makes no call more; neither does
// one whose failure is the user's input, nor one with planner.revise: 0.
func TestNoRevision(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		revise int
		setup  func(r *rig, img string) []map[string]any
		status string
	}{
		{"every task succeeded", 1, func(r *rig, img string) []map[string]any {
			r.hf.Model("test/captioner-big", "image-to-text")
			return []map[string]any{task(1, "image-to-text", nil, map[string]string{"image": img})}
		}, pipeline.StatusOK},
		{"the user's input cannot be used", 1, func(r *rig, img string) []map[string]any {
			// 413: no model takes an input this large (endpoints.ErrBadInput).
			r.hf.Model("test/captioner-big", "image-to-text").Status(http.StatusRequestEntityTooLarge, "Payload Too Large")
			return []map[string]any{task(1, "image-to-text", nil, map[string]string{"image": img})}
		}, pipeline.StatusError},
		{"planner.revise is 0", 0, func(r *rig, img string) []map[string]any {
			return []map[string]any{task(1, "text-to-video", nil, map[string]string{"text": "a fox"})}
		}, pipeline.StatusError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := reviseRig(t, tc.revise)
			img := r.image("cat.png", 32, 32)
			r.planJSON(tc.setup(r, img)...)
			r.revisions = []fakeollama.Reply{revision(task(9, "image-to-text", nil, map[string]string{"image": img}))}
			rep, err := r.run(context.Background(), pipeline.Turn{Request: "look at " + img})
			if err != nil {
				t.Fatal(err)
			}
			if end := r.taskEnd(1); end.Status != tc.status {
				t.Fatalf("task 1 = %+v", end)
			}
			if r.calls("revise") != 0 || len(eventsOf[pipeline.PlanRevisionEvent](r)) != 0 || len(rep.Revisions) != 0 {
				t.Fatalf("revised: %d calls, %+v", r.calls("revise"), rep.Revisions)
			}
			for _, c := range rep.Calls {
				if c.Stage == pipeline.StageRevision {
					t.Fatalf("a revision call was made: %+v", rep.Calls)
				}
			}
			for _, s := range eventsOf[pipeline.StageEvent](r) {
				if s.Stage == pipeline.StageRevision {
					t.Fatal("the revision stage began")
				}
			}
		})
	}
}

// TestRevisionIsAPlan: the revision's tasks pass the validator as a
// plan's do — a file the user did not give is refused, a failed task's
// output cannot be used — and run under the plan's constraints, whatever
// the revision says.
func TestRevisionIsAPlan(t *testing.T) {
	t.Parallel()
	r := reviseRig(t, 1)
	img := r.image("dog.png", 40, 30)
	other := filepath.Join(t.TempDir(), "secret.png")
	if err := os.WriteFile(other, fakehf.PNG(8, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/captioner-small", "image-to-text")
	// Only mit models: no text-to-video candidate qualifies (all are
	// apache-2.0), so task 1 fails for good without running.
	r.plans = []fakeollama.Reply{{Content: `{"constraints":{"licenses":["mit"]},"tasks":[{"task":"text-to-video","id":1,"dep":[],"args":{"text":"the dog running"}}]}`}}
	r.revisions = []fakeollama.Reply{{Content: `{"constraints":{"licenses":["apache-2.0"]},"tasks":[` +
		`{"task":"image-to-text","id":2,"dep":[],"args":{"image":"` + other + `"}},` +
		`{"task":"text-to-speech","id":3,"dep":[1],"args":{"text":"<resource>-1"}},` +
		`{"task":"image-to-text","id":4,"dep":[],"args":{"image":"` + img + `"}}]}`}}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "a video of the dog in " + img + ", mit models only"})
	if err != nil {
		t.Fatal(err)
	}
	if end := r.taskEnd(1); !end.Skipped || !strings.Contains(end.Error, "licen") {
		t.Fatalf("task 1 should have had no qualifying model: %+v", end)
	}
	revs := eventsOf[pipeline.PlanRevisionEvent](r)
	if len(revs) != 1 || len(revs[0].Tasks) != 1 || revs[0].Tasks[0].ID != 4 {
		t.Fatalf("only task 4 may run: %+v", revs)
	}
	notes := strings.Join(revs[0].Notes, "\n")
	for _, want := range []string{other + " is not a file you gave this turn", "task 1 did not succeed", "constraints (license=apache-2.0) were not used"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if m := r.model(4); m.Model != "test/captioner-big" {
		t.Fatalf("the revision's task ran outside the plan's constraints: %+v", m)
	}
	if len(r.hf.RequestsFor("test/captioner-small")) != 0 || len(rep.Revisions) != 1 {
		t.Fatal("an apache-2.0 model ran")
	}
}

// TestRevisionRepeatsThePlan: a model asked to revise often writes the
// whole plan again. A task that succeeded is not run twice — its users
// take its output — and the failed one is not retried as it was.
func TestRevisionRepeatsThePlan(t *testing.T) {
	t.Parallel()
	r := reviseRig(t, 1)
	img := r.image("dog.png", 40, 30)
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/voice", "text-to-speech")
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-video", []int{1}, map[string]string{"text": "<resource>-1"}),
	)
	r.revisions = []fakeollama.Reply{revision(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-video", []int{1}, map[string]string{"text": "<resource>-1"}),
		task(3, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}),
	)}
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "make a video of what " + img + " shows"}); err != nil {
		t.Fatal(err)
	}
	revs := eventsOf[pipeline.PlanRevisionEvent](r)
	if len(revs) != 1 || len(revs[0].Tasks) != 1 || revs[0].Tasks[0].ID != 3 || !slices.Equal(revs[0].Tasks[0].Dep, []int{1}) {
		t.Fatalf("revision = %+v", revs)
	}
	notes := strings.Join(revs[0].Notes, "\n")
	if !strings.Contains(notes, "repeated task 1 (image-to-text), which succeeded") || !strings.Contains(notes, "it repeats task 2, which failed") {
		t.Fatalf("notes:\n%s", notes)
	}
	if n := len(r.hf.RequestsFor("test/captioner-big")); n != 1 {
		t.Fatalf("the captioner ran %d times", n)
	}
	caption := r.taskEnd(1).Result
	if tts := r.hf.RequestsFor("test/voice"); len(tts) != 1 || !strings.Contains(string(tts[0].Body), caption) {
		t.Fatal("task 3 did not read task 1's caption")
	}
}

// TestRevisionReviewed: with plan review on, a revision is shown as a
// plan before it runs; turned down, it adds nothing and the turn answers.
func TestRevisionReviewed(t *testing.T) {
	t.Parallel()
	for _, accept := range []bool{true, false} {
		r := reviseRig(t, 1)
		r.hf.Model("black-forest-labs/FLUX.1-schnell", "text-to-image")
		r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox"}))
		r.revisions = []fakeollama.Reply{revision(task(2, "text-to-image", nil, map[string]string{"text": "a fox"}))}
		var shown []pipeline.Plan
		review := func(_ context.Context, p pipeline.Plan) (pipeline.Plan, error) {
			shown = append(shown, p)
			if len(shown) == 2 && !accept {
				return pipeline.Plan{}, errors.New("not that")
			}
			return p, nil
		}
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "a video of a fox", Review: review})
		if err != nil {
			t.Fatal(err)
		}
		if len(shown) != 2 || len(shown[1].Tasks) != 1 || shown[1].Tasks[0].ID != 2 {
			t.Fatalf("accept=%v: reviews %+v", accept, shown)
		}
		ran := slices.ContainsFunc(eventsOf[pipeline.TaskStartEvent](r), func(e pipeline.TaskStartEvent) bool { return e.ID == 2 })
		if ran != accept || len(rep.Revisions) != 1 || (len(rep.Revisions[0].Tasks) > 0) != accept {
			t.Fatalf("accept=%v: ran %v, revisions %+v", accept, ran, rep.Revisions)
		}
		if !accept && !strings.Contains(strings.Join(rep.Revisions[0].Notes, " "), "turned down in review: not that") {
			t.Fatalf("notes %v", rep.Revisions[0].Notes)
		}
	}
}

// guardedHF stands for a Hugging Face endpoint whose image models may
// change things (as an MCP tool not annotated read-only): a call needs
// the turn's approval. Its video models are down.
type guardedHF struct{ calls *int }

func (guardedHF) Kind() skills.EndpointKind                   { return skills.EndpointHuggingFace }
func (guardedHF) Check(context.Context, string, string) error { return nil }
func (guardedHF) NeedsApproval(task, _ string) string {
	if task == "text-to-image" {
		return "it posts the picture"
	}
	return ""
}
func (g guardedHF) Infer(_ context.Context, req endpoints.Request) (endpoints.Result, error) {
	if req.Task != "text-to-image" {
		return endpoints.Result{}, fmt.Errorf("%s is down: %w", req.Model, endpoints.ErrUnavailable)
	}
	*g.calls++
	return endpoints.Result{Blobs: []endpoints.Blob{{MIME: "image/png", Data: fakehf.PNG(8, 8)}}}, nil
}

// TestRevisionAsksApproval: a revision's task that may change things asks
// the turn's approval as a plan's does; refused, it does not run.
func TestRevisionAsksApproval(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{true, false} {
		calls := 0
		r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Revise: 1}), withEndpoints(guardedHF{calls: &calls}))
		r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox"}))
		r.revisions = []fakeollama.Reply{revision(task(2, "text-to-image", nil, map[string]string{"text": "a fox"}))}
		var asked []pipeline.Approval
		approve := func(_ context.Context, a pipeline.Approval) error {
			asked = append(asked, a)
			if !allow {
				return errors.New("no posting")
			}
			return nil
		}
		if _, err := r.run(context.Background(), pipeline.Turn{Request: "a video of a fox", Approve: approve}); err != nil {
			t.Fatal(err)
		}
		if len(asked) == 0 || asked[0].ID != 2 || asked[0].Reason != "it posts the picture" {
			t.Fatalf("allow=%v: approvals asked %+v", allow, asked)
		}
		if end := r.taskEnd(2); (end.Status == pipeline.StatusOK) != allow || (calls > 0) != allow {
			t.Fatalf("allow=%v: task 2 %+v, %d calls", allow, end, calls)
		}
	}
}

// TestNoRevisionAfterARefusal: a task the user refused to approve is not
// planned around.
func TestNoRevisionAfterARefusal(t *testing.T) {
	t.Parallel()
	calls := 0
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Revise: 1}), withEndpoints(guardedHF{calls: &calls}))
	r.planJSON(task(1, "text-to-image", nil, map[string]string{"text": "a fox"}))
	refuse := func(context.Context, pipeline.Approval) error { return errors.New("no posting") }
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "post a picture of a fox", Approve: refuse}); err != nil {
		t.Fatal(err)
	}
	if end := r.taskEnd(1); end.Status != pipeline.StatusError || calls != 0 || r.calls("revise") != 0 {
		t.Fatalf("task 1 %+v, %d calls, %d revisions", end, calls, r.calls("revise"))
	}
}

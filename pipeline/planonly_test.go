package pipeline_test

import (
	"context"
	"testing"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestPlanOnlyReportsTheStage: PlanOnly goes through the planning stage of
// a turn — the re-ask after an unreadable reply, the validator — and says
// what it took, running no task and writing no answer.
func TestPlanOnlyReportsTheStage(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.plans = []fakeollama.Reply{
		{Content: "Sure! Here is my plan: tasks are great"},
		{Content: `{"tasks":[{"task":"text-to-image","id":3,"dep":[],"args":{"text":"a fox"}}]}`},
	}
	res, err := r.eng.PlanOnly(context.Background(), pipeline.Turn{Request: "draw a fox"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Replies) != 2 || r.calls("plan") != 2 {
		t.Errorf("replies %q (%d planning calls), want the unreadable one and the re-asked one", res.Replies, r.calls("plan"))
	}
	// Read on the re-ask: usable, but not valid as first written.
	if res.ValidAsWritten || !res.Usable || len(res.Plan.Tasks) != 1 || res.Plan.Tasks[0].Task != "text-to-image" {
		t.Errorf("result = %+v", res)
	}
	if len(res.Calls) != 2 || res.Calls[0].Stage != pipeline.StagePlanning || res.Calls[1].PromptTokens == 0 {
		t.Errorf("calls = %+v, want two planning calls with their tokens", res.Calls)
	}
	if r.calls("respond") != 0 || r.calls("select") != 0 || len(res.Models) != 0 {
		t.Errorf("PlanOnly without selection answered or selected: respond %d select %d", r.calls("respond"), r.calls("select"))
	}
}

func TestPlanOnlyValidAsWritten(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.planJSON(task(1, "text-to-image", nil, map[string]string{"text": "a fox"}))
	res, err := r.eng.PlanOnly(context.Background(), pipeline.Turn{Request: "draw a fox"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ValidAsWritten || !res.Usable || len(res.Replies) != 1 {
		t.Errorf("a strict, complete plan: %+v", res)
	}
	// With selection, every task gets its model event.
	if len(res.Models) != 1 || res.Models[0].ID != 1 {
		t.Errorf("models = %+v, want one for task 1", res.Models)
	}
	// A near-miss name is repaired: usable, not valid as written.
	r.planJSON(task(1, "text2image", nil, map[string]string{"text": "a fox"}))
	res, err = r.eng.PlanOnly(context.Background(), pipeline.Turn{Request: "draw a fox"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.ValidAsWritten || !res.Usable || len(res.Plan.Notes) == 0 {
		t.Errorf("a repaired plan: %+v", res)
	}
}

// TestPlanOnlyPlansAsRunDoes: eval's way in asks the controller exactly
// what a turn would — a media file the request names (not attached) is
// the turn's resource in both, so the planning prompts are the same.
func TestPlanOnlyPlansAsRunDoes(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("cat.png", 16, 16)
	r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
	turn := pipeline.Turn{Request: "caption " + img + " please"}
	if _, err := r.eng.PlanOnly(context.Background(), turn, false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.eng.Run(context.Background(), turn, func(pipeline.Event) {}); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	plans := r.requests["plan"]
	r.mu.Unlock()
	if len(plans) != 2 {
		t.Fatalf("%d planning calls, want one each", len(plans))
	}
	last := func(i int) string { m := plans[i].Messages; return m[len(m)-1].Content }
	if last(0) != last(1) {
		t.Fatalf("PlanOnly asked\n%s\n\nRun asked\n%s", last(0), last(1))
	}
}

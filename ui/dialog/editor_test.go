package dialog

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/theme"
)

// TestPlanJSONIsForPeople: references read as the plan wrote them, not
// as \u003cresource\u003e-1.
func TestPlanJSONIsForPeople(t *testing.T) {
	js := PlanJSON(pipeline.Plan{Tasks: []pipeline.Task{{ID: 2, Task: "image-to-text", Dep: []int{1}, Args: map[string]string{"image": "<resource>-1", "text": "a & b"}}}})
	if strings.Contains(js, `\u003c`) || strings.Contains(js, `\u0026`) || !strings.Contains(js, `"image": "<resource>-1"`) || !strings.Contains(js, `"a & b"`) {
		t.Fatalf("PlanJSON escapes for HTML:\n%s", js)
	}
	back, err := parsePlanJSON(js)
	if err != nil || back.Tasks[0].Args["image"] != "<resource>-1" {
		t.Fatalf("the JSON does not read back: %+v, %v", back, err)
	}
}

// TestEditorUnchangedAsks: leaving $EDITOR without a change does not run
// the plan; the review asks, and r still runs it.
func TestEditorUnchangedAsks(t *testing.T) {
	st := theme.NewStyles()
	plan := pipeline.Plan{Tasks: []pipeline.Task{{ID: 1, Task: "image-resize", Args: map[string]string{"image": "/a.png"}}}}
	d := NewReview(theme.DefaultKeyMap(), &st, plan, []string{"true"}, func() time.Time { return time.Time{} })
	if act := d.EditorReturned(EditorDone{Review: d, Text: PlanJSON(plan) + "\n"}); act != nil {
		t.Fatalf("an unchanged plan ran: %#v", act)
	}
	_, body, _ := d.View(70, 12)
	if got := ansi.Strip(strings.Join(body, "\n")); !strings.Contains(got, "unchanged — r runs it as it is") {
		t.Fatalf("the review does not ask:\n%s", got)
	}
	if act, _ := d.Update(letter('r')); act == nil {
		t.Fatal("r after an unchanged edit should run the plan")
	}
	edited := strings.Replace(PlanJSON(plan), "/a.png", "/b.png", 1)
	act := d.EditorReturned(EditorDone{Review: d, Text: edited})
	if a, ok := act.(Approve); !ok || a.Plan.Tasks[0].Args["image"] != "/b.png" {
		t.Fatalf("an edited plan: %#v", act)
	}
}

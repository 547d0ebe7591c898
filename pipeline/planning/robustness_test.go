package planning

import (
	"math"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
)

// TestHugeIDsInAnEditedPlan: ids a user types into a reviewed plan can be
// anything; numbering the next task from math.MaxInt wrapped around to a
// negative id.
func TestHugeIDsInAnEditedPlan(t *testing.T) {
	e := testPlanner(t)
	img := touch(t, t.TempDir(), "a.png")
	p := e.validate([]flow.Task{
		{ID: math.MaxInt, Task: "image-to-text", Args: map[string]string{"image": img}},
		{ID: idMissing, Task: "image-classification", Args: map[string]string{"image": img}},
	}, flow.Constraints{}, typedTurn(img), nil)
	if len(p.Tasks) != 2 {
		t.Fatalf("plan = %+v, notes %q", p.Tasks, p.Notes)
	}
	for _, task := range p.Tasks {
		if task.ID < 0 || task.ID > maxTaskID {
			t.Fatalf("task id %d out of range: %+v", task.ID, p.Tasks)
		}
	}
	if p.Tasks[0].ID == p.Tasks[1].ID {
		t.Fatalf("duplicate ids: %+v", p.Tasks)
	}
}

package planning

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline/flow"
)

// The head's examples are what models copy: each must be valid under the
// plan schema and already in its shortest form (PlanJSON of the plan it
// reads as), so no example teaches a token that carries nothing.
func TestHeadExamplesAreTheShortestForm(t *testing.T) {
	e := testPlanner(t)
	dir := t.TempDir()
	files := map[string][]byte{"/home/ann/e1.jpg": fakehf.PNG(8, 8), "/tmp/talk.wav": fakehf.WAV(1600, 16000)}
	for _, d := range headDemos {
		if err := fakeollama.Validate(Schema(e.cat), []byte(d.plan)); err != nil {
			t.Errorf("example %q does not satisfy the plan schema: %v", d.plan, err)
		}
		turn := turn{Request: d.request}
		for name, data := range files {
			if strings.Contains(d.request, name) {
				p := filepath.Join(dir, filepath.Base(name))
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
				turn.Attachments = append(turn.Attachments, p)
			}
		}
		raw, err := parsePlan(d.plan)
		if err != nil {
			t.Fatalf("example %q: %v", d.plan, err)
		}
		p := e.validate(raw.Tasks, raw.Constraints, turn, raw.Notes)
		if len(p.Notes) > 0 || len(p.Tasks) != len(raw.Tasks) {
			t.Errorf("example %q needs repairs: %q", d.plan, p.Notes)
		}
		if got := e.planner(turn).JSON(p); got != d.plan {
			t.Errorf("example for %q is not in the shortest form:\n got %s\nwant %s", d.request, got, d.plan)
		}
	}
}

// PlanJSON's output reads back as the plan it was written from, whatever
// ids, dependencies and arguments the plan had; and it is shorter than
// the form the schema asked for before (constraints, ids and deps always).
func TestPlanJSONReadsBackAsThePlan(t *testing.T) {
	e := testPlanner(t)
	dir := t.TempDir()
	img, other := touch(t, dir, "cat.png"), touch(t, dir, "dog.png")
	turn := turn{Attachments: []string{img}}
	plans := []flow.Plan{
		{Tasks: []flow.Task{}},
		{Tasks: []flow.Task{{ID: 7, Task: "image-to-text", Dep: []int{}, Args: map[string]string{"image": img}}}},
		{Tasks: []flow.Task{
			{ID: 3, Task: "image-to-text", Dep: []int{}, Args: map[string]string{"image": img}},
			{ID: 5, Task: "object-detection", Dep: []int{}, Args: map[string]string{"image": other}},
			{ID: 9, Task: "text-to-speech", Dep: []int{3, 5}, Args: map[string]string{"text": "<resource>-3"}},
		}, Constraints: flow.Constraints{LocalOnly: true, Licenses: []string{"mit"}}},
	}
	turn.Attachments = append(turn.Attachments, other)
	for _, want := range plans {
		want = e.validate(want.Tasks, want.Constraints, turn, nil)
		js := e.planner(turn).JSON(want)
		if err := fakeollama.Validate(Schema(e.cat), []byte(js)); err != nil {
			t.Fatalf("%s does not satisfy the schema: %v", js, err)
		}
		raw, err := parsePlan(js)
		if err != nil {
			t.Fatal(err)
		}
		got := e.validate(raw.Tasks, raw.Constraints, turn, raw.Notes)
		if e.planner(turn).JSON(got) != js || len(got.Tasks) != len(want.Tasks) || got.Constraints.String() != want.Constraints.String() {
			t.Fatalf("%s read back as %+v, want %+v", js, got, want)
		}
		for i := range got.Tasks {
			w, g := want.Tasks[i], got.Tasks[i]
			if g.ID != i+1 || g.Task != w.Task || len(g.Dep) != len(w.Dep) || len(g.Args) != len(w.Args) {
				t.Fatalf("%s: task %d read back as %+v, want %+v", js, i+1, g, w)
			}
		}
	}
}

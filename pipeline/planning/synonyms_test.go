package planning

import (
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// One likely slip must not drop a whole chain: a zero-shot detection written
// with text instead of labels is repaired from the skill's synonyms, with a
// note, and its two dependents stay.
func TestNearMissArgumentNamesFromSkillSynonyms(t *testing.T) {
	e := testPlanner(t)
	img := touch(t, t.TempDir(), "dog.png")
	p := e.validate([]flow.Task{
		{ID: 1, Task: "zero-shot-object-detection", Args: map[string]string{"image": img, "text": "dog"}},
		{ID: 2, Task: "mask-generation", Dep: []int{1}, Args: map[string]string{"image": img, "box": "<resource>-1"}},
		{ID: 3, Task: "mask-overlay", Dep: []int{2}, Args: map[string]string{"image": img, "mask": "<resource>-2"}},
	}, flow.Constraints{}, typedTurn(img), nil)
	if !slices.Equal(ids(p), []int{1, 2, 3}) {
		t.Fatalf("plan = %+v, notes %q: the chain was dropped", p.Tasks, p.Notes)
	}
	if p.Tasks[0].Args["labels"] != "dog" || !hasNote(p, `task 1: read argument "text" as "labels"`) {
		t.Fatalf("task 1 = %+v, notes %q", p.Tasks[0], p.Notes)
	}
	// Spelling variants of a synonym or the name itself are read too.
	p = e.validate([]flow.Task{{ID: 1, Task: "zero-shot-image-classification", Args: map[string]string{"image": img, "Candidate-Labels": "cat, dog"}}},
		flow.Constraints{}, typedTurn(img), nil)
	if len(p.Tasks) != 1 || p.Tasks[0].Args["labels"] != "cat, dog" {
		t.Fatalf("plan = %+v, notes %q", p.Tasks, p.Notes)
	}
}

// Every argument not named after its modality (labels, context, sentences,
// src_lang, mask, point, box…) lists the names a planner writes for it, and
// each of them is read as the argument.
func TestEveryNamedArgumentHasSynonymsThatRepair(t *testing.T) {
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	v := &validator{cat: cat}
	checked := 0
	for _, s := range cat.All() {
		for _, a := range s.Args {
			if a.Name == string(a.Type) {
				continue
			}
			if len(a.Synonyms) == 0 {
				t.Errorf("%s: argument %s has no synonyms (add synonyms: […] to its skill file)", s.Name, a.Name)
			}
			for _, syn := range a.Synonyms {
				checked++
				task := flow.Task{ID: 1, Task: s.Name, Args: map[string]string{syn: "x"}}
				v.notes = nil
				v.fixArgNames(&task, s)
				if task.Args[a.Name] != "x" {
					t.Errorf("%s: %s=x became %v, want %s=x (notes %q)", s.Name, syn, task.Args, a.Name, v.notes)
				}
				if !slices.ContainsFunc(v.notes, func(n string) bool { return strings.Contains(n, `as "`+a.Name+`"`) }) {
					t.Errorf("%s: reading %s as %s left no note (%q)", s.Name, syn, a.Name, v.notes)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no synonyms checked")
	}
}

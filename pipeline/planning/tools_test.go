package planning

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// toolSkill is a tool skill with the given arguments' JSON schemas.
func toolSkill(t *testing.T, name string, props map[string]string) *skills.Skill {
	t.Helper()
	s := &skills.Skill{Name: name, Description: "A tool.", Outputs: []skills.Modality{skills.Text},
		Tool:   &skills.Tool{Server: "srv", Name: strings.TrimPrefix(name, "srv."), Params: map[string]skills.Param{}},
		Models: []skills.Model{{ID: name, Endpoints: []skills.EndpointKind{skills.EndpointMCP}}}}
	for k, js := range props {
		var sch skills.Schema
		if err := json.Unmarshal([]byte(js), &sch); err != nil {
			t.Fatal(err)
		}
		s.Args = append(s.Args, skills.Arg{Name: k, Type: skills.Text})
		s.Tool.Params[k] = skills.Param{Property: k, Schema: &sch}
	}
	return s
}

// TestValidatorConvertsToolArguments: before anything runs, a tool's
// arguments are converted to its schema — a repair is noted and written
// back into the plan, an argument that cannot be converted drops the task
// naming it, and a text argument naming a file the turn may not read
// drops the task (a stdio server could open it).
func TestValidatorConvertsToolArguments(t *testing.T) {
	cat, _ := skills.Embedded()
	cat.Put(toolSkill(t, "srv.sum", map[string]string{"a": `{"type":"number"}`, "unit": `{"type":"string","enum":["celsius","fahrenheit"]}`}))
	cat.Put(toolSkill(t, "srv.read", map[string]string{"path": `{"type":"string"}`}))
	e := &tester{cat: cat, max: 16}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := e.validate([]flow.Task{
		{ID: 1, Task: "srv.sum", Args: map[string]string{"a": "2.0", "unit": "Farenheit"}},
		{ID: 2, Task: "srv.sum", Args: map[string]string{"a": "two", "unit": "celsius"}},
		{ID: 3, Task: "srv.read", Args: map[string]string{"path": secret}},
		{ID: 4, Task: "srv.read", Args: map[string]string{"path": "notes for later"}},
	}, flow.Constraints{}, turn{Request: "add"}, nil)
	notes := strings.Join(plan.Notes, "\n")
	if len(plan.Tasks) != 2 || plan.Tasks[0].ID != 1 || plan.Tasks[1].ID != 4 {
		t.Fatalf("kept %+v\n%s", plan.Tasks, notes)
	}
	if a := plan.Tasks[0].Args; a["a"] != "2" || a["unit"] != "fahrenheit" {
		t.Errorf("not repaired: %v", a)
	}
	for _, want := range []string{`task 1: argument a: read "2.0" as 2`, `task 1: argument unit: read "Farenheit" as "fahrenheit"`,
		`srv.sum: argument a: "two" is not a number`, secret + " is not a file you gave this turn"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestValidatorFillsAToolsDefault: a required argument the plan leaves
// out is filled from the tool's schema default (noted, and sent, so a
// server that checks required arguments gets it); one without a default
// still drops the task, naming the argument and the type it needs.
func TestValidatorFillsAToolsDefault(t *testing.T) {
	cat, _ := skills.Embedded()
	cat.Put(toolSkill(t, "srv.run", map[string]string{"a": `{"type":"integer"}`,
		"mode": `{"type":"string","enum":["fast","slow"],"default":"fast"}`, "count": `{"type":"integer","default":3}`}))
	e := &tester{cat: cat, max: 16}
	plan := e.validate([]flow.Task{
		{ID: 1, Task: "srv.run", Args: map[string]string{"a": "1"}},
		{ID: 2, Task: "srv.run", Args: map[string]string{"mode": "slow"}},
	}, flow.Constraints{}, turn{Request: "run"}, nil)
	notes := strings.Join(plan.Notes, "\n")
	if len(plan.Tasks) != 1 || plan.Tasks[0].ID != 1 {
		t.Fatalf("kept %+v\n%s", plan.Tasks, notes)
	}
	if a := plan.Tasks[0].Args; a["mode"] != "fast" || a["count"] != "3" || a["a"] != "1" {
		t.Errorf("defaults not filled: %v", a)
	}
	for _, want := range []string{`task 1: argument mode: the plan gives none; using the tool's default "fast"`,
		`task 1: argument count: the plan gives none; using the tool's default 3`,
		`srv.run needs the argument "a" (integer) and the plan gives none`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

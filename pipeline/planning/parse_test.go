package planning

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chorusai/chorus/pipeline/flow"
)

func TestParsePlanShapes(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  []flow.Task
	}{
		{"bare array", `[{"task":"image-to-text","id":1,"dep":[-1],"args":{"image":"a.jpg"}}]`,
			[]flow.Task{{ID: 1, Task: "image-to-text", Dep: []int{}, Args: map[string]string{"image": "a.jpg"}}}},
		{"object with tasks", `{"tasks":[{"task":"a","id":0,"dep":[],"args":{}},{"task":"b","id":1,"dep":[0],"args":{"text":"<resource>-0"}}]}`,
			[]flow.Task{{ID: 0, Task: "a", Dep: []int{}, Args: map[string]string{}}, {ID: 1, Task: "b", Dep: []int{0}, Args: map[string]string{"text": "<resource>-0"}}}},
		{"single task object", `{"task":"summarization","id":1,"dep":[],"args":{"text":"long"}}`,
			[]flow.Task{{ID: 1, Task: "summarization", Dep: []int{}, Args: map[string]string{"text": "long"}}}},
		{"prose and fences", "Sure! Here is the plan:\n```json\n[{\"task\": \"ocr\", \"id\": 1, \"dep\": [], \"args\": {\"image\": \"x.png\"}}]\n```\nHope it helps.",
			[]flow.Task{{ID: 1, Task: "ocr", Dep: []int{}, Args: map[string]string{"image": "x.png"}}}},
		{"prose without fences", `I will do this: [{"task": "ocr", "id": 1, "dep": [], "args": {"image": "x.png"}}] and that's it`,
			[]flow.Task{{ID: 1, Task: "ocr", Dep: []int{}, Args: map[string]string{"image": "x.png"}}}},
		{"trailing commas", `[{"task": "ocr", "id": 1, "dep": [], "args": {"image": "x.png",},},]`,
			[]flow.Task{{ID: 1, Task: "ocr", Dep: []int{}, Args: map[string]string{"image": "x.png"}}}},
		{"string ids and deps", `[{"task":"a","id":"1","dep":"-1","args":{}},{"task":"b","id":"task-2","dep":["1"],"args":{}},{"task":"c","id":3,"dep":"1, 2","args":{}}]`,
			[]flow.Task{{ID: 1, Task: "a", Dep: []int{}, Args: map[string]string{}}, {ID: 2, Task: "b", Dep: []int{1}, Args: map[string]string{}}, {ID: 3, Task: "c", Dep: []int{1, 2}, Args: map[string]string{}}}},
		{"think block", "<think>the user wants a caption [not json</think>\n[{\"task\":\"ocr\",\"id\":1,\"dep\":[],\"args\":{\"image\":\"x.png\"}}]",
			[]flow.Task{{ID: 1, Task: "ocr", Dep: []int{}, Args: map[string]string{"image": "x.png"}}}},
		{"visual prompts as numbers", `[{"task":"mask-generation","id":1,"dep":[],"args":{"image":"x.png","point":[120,80]}}]`,
			[]flow.Task{{ID: 1, Task: "mask-generation", Dep: []int{}, Args: map[string]string{"image": "x.png", "point": "120,80"}}}},
		{"lists a comma keeps apart, and lists it would not", `[{"task":"memory.create_entities","id":1,"dep":[],"args":{` +
			`"entities":[{"name":"Ada","observations":["wrote, first"]},{"name":"Engine"}],"labels":["cat","dog"],"phrases":["a, b","c"],"grid":[[1,2],[3,4]]}}]`,
			[]flow.Task{{ID: 1, Task: "memory.create_entities", Dep: []int{}, Args: map[string]string{
				"entities": `[{"name":"Ada","observations":["wrote, first"]},{"name":"Engine"}]`, "labels": "cat,dog",
				"phrases": `["a, b","c"]`, "grid": `[[1,2],[3,4]]`}}}},
		{"args as a string", `[{"task":"summarization","id":1,"dep":[],"args":"some text"}]`,
			[]flow.Task{{ID: 1, Task: "summarization", Dep: []int{}, Args: map[string]string{"text": "some text"}}}},
		{"empty plan", `[]`, nil},
		{"empty object plan", `{"tasks": []}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp, err := parsePlan(tt.reply)
			if err != nil {
				t.Fatalf("parsePlan: %v", err)
			}
			if !reflect.DeepEqual(rp.Tasks, tt.want) {
				t.Fatalf("tasks = %+v\nwant    %+v", rp.Tasks, tt.want)
			}
		})
	}
}

// The schema has no ids: a task without one is numbered by its place. An
// id that is there but does not read is left to validation to number.
func TestParsePlanMissingID(t *testing.T) {
	rp, err := parsePlan(`[{"task":"ocr","args":{"image":"x.png"}},{"task":"image-to-text"},{"task":"ocr","id":"first"}]`)
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{rp.Tasks[0].ID, rp.Tasks[1].ID, rp.Tasks[2].ID}; !slices.Equal(got, []int{1, 2, idMissing}) {
		t.Fatalf("ids = %v, want 1, 2 by place and the missing marker", got)
	}
}

// The schema's shortest plans read as they mean: {} and a plan of only
// constraints have no task; a task's left-out dep and args are empty.
func TestParsePlanShortestForms(t *testing.T) {
	for _, reply := range []string{`{}`, `{"constraints":{"local_only":true}}`} {
		rp, err := parsePlan(reply)
		if err != nil || len(rp.Tasks) != 0 {
			t.Fatalf("parsePlan(%s) = %+v, %v; want an empty plan", reply, rp, err)
		}
	}
	rp, err := parsePlan(`{"tasks":[{"task":"image-to-text"},{"task":"text-to-speech","args":{"text":"<resource>-1"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{}}, {ID: 2, Task: "text-to-speech", Args: map[string]string{"text": "<resource>-1"}}}
	if !reflect.DeepEqual(rp.Tasks, want) {
		t.Fatalf("tasks = %+v\nwant    %+v", rp.Tasks, want)
	}
}

func TestParsePlanErrors(t *testing.T) {
	for name, reply := range map[string]string{
		"no json":      "I cannot help with that.",
		"empty":        "   ",
		"truncated":    `{"tasks": [{"task": "image-to-text", "id": 1, "dep": [], "args": {"image": "/tmp/a.j`,
		"wrong object": `{"answer": "hello"}`,
		"scalar":       `42`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := parsePlan(reply); err == nil {
				t.Fatalf("parsePlan(%q) succeeded, want an error", reply)
			}
		})
	}
	if _, err := parsePlan("nothing here"); !errors.Is(err, flow.ErrNoJSON) {
		t.Fatalf("plain prose: err = %v, want errNoJSON", err)
	}
}

func TestParsePlanConstraints(t *testing.T) {
	rp, err := parsePlan(`{"tasks":[], "constraints":{"licenses":["Apache-2.0","mit"],"max_size":"1GB","local_only":true,"prefer":"best","benchmark":"Common_Voice WER"}}`)
	if err != nil {
		t.Fatal(err)
	}
	c := rp.Constraints
	if !reflect.DeepEqual(c.Licenses, []string{"apache-2.0", "mit"}) || c.MaxSize.Bytes != 1e9 || !c.LocalOnly || c.Prefer != flow.PreferBest || c.Benchmark != "common_voice wer" {
		t.Fatalf("constraints = %+v", c)
	}
	rp, err = parsePlan(`{"tasks":[], "constraints":{"prefer":"best","max_size":"huge"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Constraints.Prefer != "" || !rp.Constraints.MaxSize.IsZero() || len(rp.Notes) != 2 {
		t.Fatalf("bad constraints were not ignored with notes: %+v %v", rp.Constraints, rp.Notes)
	}
}

func FuzzParsePlan(f *testing.F) {
	for _, s := range []string{`[]`, `{"tasks":[{"task":"a","id":"1","dep":"-1","args":{"x":[1,2]}}]}`, "```json\n[1,2,]\n```", `{"a":`, `[[[[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parsePlan(s) // must not panic
	})
}

// TestParseNotesAreClipped: a model's garbage quoted in a note is clipped,
// so one bad field cannot flood the plan pane and the answer's repairs.
func TestParseNotesAreClipped(t *testing.T) {
	junk := strings.Repeat("ȕrTɇ笧", 200)
	rp, err := parsePlan(`{"tasks":[{"task":"image-to-text","id":"t` + junk + `7","args":{}}], "constraints":{"max_size":"` + junk + `"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(rp.Notes) != 2 {
		t.Fatalf("notes = %q", rp.Notes)
	}
	for _, n := range rp.Notes {
		if utf8.RuneCountInString(n) > 250 {
			t.Fatalf("note of %d runes: %q", utf8.RuneCountInString(n), n)
		}
	}
	if !strings.HasPrefix(rp.Notes[0], "ignored the size constraint: size") || !strings.HasSuffix(rp.Notes[1], "read as 7") {
		t.Fatalf("notes = %q", rp.Notes)
	}
}

package planning

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// rawPlan is a plan as the controller wrote it, before validation.
type rawPlan struct {
	Tasks       []flow.Task
	Constraints flow.Constraints
	// Notes record what the parser had to interpret ("id \"t2\" read as 2").
	Notes []string
	// placed[i] says Tasks[i] had no "id" and is numbered by its place:
	// a revision's tasks continue the turn's numbering (Revise).
	placed []bool
}

// parsePlan reads a plan from what real models produce: the schema's
// shortest form ({"tasks":[{"task":…}]}, tasks numbered by their order,
// {} for none) and every older one — a bare array, an object with a
// "tasks" array after its "constraints", a single task object, JSON inside
// prose or ``` fences, trailing commas, ids (as numbers or strings),
// dep: [-1] for none. An empty list is a valid, empty plan.
func parsePlan(reply string) (rawPlan, error) {
	v, err := flow.ExtractJSON(reply)
	if err != nil {
		return rawPlan{}, err
	}
	var rp rawPlan
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case map[string]any:
		found := false
		for _, k := range []string{"tasks", "plan", "task_list", "steps", "subtasks"} {
			if l, ok := x[k].([]any); ok {
				list, found = l, true
				break
			}
		}
		if !found {
			if _, ok := x["task"]; ok {
				list, found = []any{x}, true
			}
		}
		if !found && !onlyConstraints(x) {
			return rawPlan{}, fmt.Errorf("the reply is a JSON object without a \"tasks\" list")
		}
		if c, ok := x["constraints"].(map[string]any); ok {
			rp.Constraints, rp.Notes = parseConstraintsJSON(c)
		}
	default:
		return rawPlan{}, fmt.Errorf("the reply is JSON but not a task list")
	}
	for i, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			rp.Notes = append(rp.Notes, fmt.Sprintf("ignored plan entry %d: not a task object", i+1))
			continue
		}
		t, notes := parseTask(obj, i)
		rp.Notes = append(rp.Notes, notes...)
		rp.Tasks = append(rp.Tasks, t)
		_, hasID := obj["id"]
		rp.placed = append(rp.placed, !hasID)
	}
	return rp, nil
}

// onlyConstraints reports whether a plan object has nothing but what the
// schema lets a plan without tasks hold: {} or {"constraints":{…}} is a
// plan with no task (the schema leaves out an empty "tasks").
func onlyConstraints(x map[string]any) bool {
	for k := range x {
		if k != "constraints" {
			return false
		}
	}
	return true
}

// idMissing marks a task whose id could not be read; validation numbers it.
const idMissing = math.MinInt32

// maxTaskID bounds task ids (and ids in dep): larger ones are not read from
// a reply, and validation renumbers them in an edited plan, so numbering
// the next task can never overflow.
const maxTaskID = 1_000_000

// parseTask reads the task object at index (from 0) of a plan's list. A
// task without an "id" key is numbered by its place, index+1: the schema
// has no ids, the order gives them. One whose id is there but unreadable
// is left to validation to number, with a note.
func parseTask(obj map[string]any, index int) (flow.Task, []string) {
	var notes []string
	t := flow.Task{ID: idMissing, Args: map[string]string{}}
	if _, ok := obj["id"]; !ok {
		t.ID = index + 1
	}
	for _, k := range []string{"task", "name", "task_name", "type"} {
		if s, ok := obj[k].(string); ok {
			t.Task = strings.TrimSpace(s)
			break
		}
	}
	if raw, ok := obj["id"]; ok {
		if id, ok := toInt(raw); ok {
			t.ID = id
			if _, isNum := raw.(float64); !isNum {
				notes = append(notes, fmt.Sprintf("task id %v read as %d", clipArgs([]any{jsonish(raw)})[0], id))
			}
		}
	}
	t.Dep = parseDeps(obj["dep"])
	if t.Dep == nil {
		t.Dep = parseDeps(obj["deps"])
	}
	switch a := obj["args"].(type) {
	case map[string]any:
		for k, v := range a {
			if s, ok := argString(v); ok {
				t.Args[strings.ToLower(strings.TrimSpace(k))] = s
			}
		}
	case string:
		t.Args["text"] = a
	case nil:
		// Some models put arguments next to the task fields.
		for _, k := range []string{"text", "image", "audio", "video"} {
			if s, ok := argString(obj[k]); ok {
				t.Args[k] = s
			}
		}
	}
	return t, notes
}

func parseDeps(v any) []int {
	var out []int
	add := func(x any) {
		if n, ok := toInt(x); ok && n >= 0 {
			for _, d := range out {
				if d == n {
					return
				}
			}
			out = append(out, n)
		}
	}
	switch d := v.(type) {
	case []any:
		for _, x := range d {
			add(x)
		}
	case string:
		for _, part := range strings.FieldsFunc(d, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
			add(part)
		}
	case nil:
		return nil
	default:
		add(d)
	}
	if out == nil {
		out = []int{}
	}
	return out
}

var digits = regexp.MustCompile(`\d+`)

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > maxTaskID {
			return 0, false
		}
		return int(x), true
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && n <= maxTaskID && n >= -maxTaskID {
			return n, true
		}
		m := digits.FindString(x)
		if m == "" {
			return 0, false
		}
		n, err := strconv.Atoi(m)
		if err != nil || n > maxTaskID || n < -maxTaskID {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// argString renders an argument value as the string the executor uses:
// numbers as written, a list of numbers or words (a point, a box, labels)
// comma-joined. A list whose items a comma would not keep apart — objects,
// lists, text with commas in it, as a tool's array of entities is — stays
// JSON, which a tool's schema reads back item by item (skills.Schema).
func argString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := argString(e)
			if !ok {
				return "", false
			}
			switch e.(type) {
			case map[string]any, []any:
				b, err := json.Marshal(x)
				return string(b), err == nil
			case string:
				if strings.Contains(s, ",") {
					b, err := json.Marshal(x)
					return string(b), err == nil
				}
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), true
	case map[string]any:
		b, err := json.Marshal(x)
		return string(b), err == nil
	}
	return "", false
}

func jsonish(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func parseConstraintsJSON(m map[string]any) (flow.Constraints, []string) {
	var c flow.Constraints
	var notes []string
	switch l := m["licenses"].(type) {
	case []any:
		for _, x := range l {
			if s, ok := x.(string); ok && strings.TrimSpace(s) != "" {
				c.Licenses = append(c.Licenses, strings.ToLower(strings.TrimSpace(s)))
			}
		}
	case string:
		for _, s := range strings.Split(l, ",") {
			if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
				c.Licenses = append(c.Licenses, s)
			}
		}
	}
	if s, ok := m["max_size"].(string); ok && strings.TrimSpace(s) != "" {
		if lim, err := skills.ParseLimit(s); err == nil {
			c.MaxSize = lim
		} else {
			// The error quotes the value; a model's garbage is clipped.
			notes = append(notes, "ignored the size constraint: "+text.Clip(err.Error(), 2*maxNoteArg))
		}
	}
	if b, ok := m["local_only"].(bool); ok {
		c.LocalOnly = b
	}
	p, _ := m["prefer"].(string)
	b, _ := m["benchmark"].(string)
	switch pref, bench, err := flow.ParsePrefer(p, b); {
	case err == nil:
		c.Prefer, c.Benchmark = pref, bench
	case strings.HasPrefix(strings.ToLower(strings.TrimSpace(p)), flow.PreferBest):
		notes = append(notes, "ignored \"best\": the request names no benchmark")
	default:
		notes = append(notes, fmt.Sprintf("ignored: the preference %q — want smallest or best", text.Clip(p, maxNoteArg)))
	}
	if l, ok := m["tasks"].([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok && s != "" {
				c.Tasks = append(c.Tasks, s)
			}
		}
	}
	return c, notes
}

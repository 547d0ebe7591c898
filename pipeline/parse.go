package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// rawPlan is a plan as the controller wrote it, before validation.
type rawPlan struct {
	Tasks       []Task
	Constraints Constraints
	// Notes record what the parser had to interpret ("id \"t2\" read as 2").
	Notes []string
	// placed[i] says Tasks[i] had no "id" and is numbered by its place:
	// a revision's tasks continue the turn's numbering (revise.go).
	placed []bool
}

// errNoJSON means the reply held no JSON value at all.
var errNoJSON = errors.New("no JSON found in the reply")

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?(</think>|$)`)

// parsePlan reads a plan from what real models produce: the schema's
// shortest form ({"tasks":[{"task":…}]}, tasks numbered by their order,
// {} for none) and every older one — a bare array, an object with a
// "tasks" array after its "constraints", a single task object, JSON inside
// prose or ``` fences, trailing commas, ids (as numbers or strings),
// dep: [-1] for none. An empty list is a valid, empty plan.
func parsePlan(reply string) (rawPlan, error) {
	v, err := extractJSON(reply)
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
func parseTask(obj map[string]any, index int) (Task, []string) {
	var notes []string
	t := Task{ID: idMissing, Args: map[string]string{}}
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

func parseConstraintsJSON(m map[string]any) (Constraints, []string) {
	var c Constraints
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
	switch pref, bench, err := ParsePrefer(p, b); {
	case err == nil:
		c.Prefer, c.Benchmark = pref, bench
	case strings.HasPrefix(strings.ToLower(strings.TrimSpace(p)), PreferBest):
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

// extractJSON finds the JSON value in a model reply.
func extractJSON(reply string) (any, error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(reply, ""))
	if s == "" {
		return nil, errNoJSON
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		return cleanDecoded(v), nil
	}
	// Fenced blocks first: models often explain around them.
	for _, m := range fence.FindAllStringSubmatch(s, -1) {
		if v, err := decodeLenient(m[1]); err == nil {
			return v, nil
		}
	}
	// Scan top-level bracketed values in order. An unbalanced one means the
	// reply was cut off: everything after its start is inside it, so no
	// fragment of it may be mistaken for the plan.
	var firstErr error
	for i := 0; i < len(s); i++ {
		if s[i] != '[' && s[i] != '{' {
			continue
		}
		end, ok := matchBracket(s, i)
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("the JSON in the reply is cut off or unbalanced")
			}
			return nil, firstErr
		}
		v, err := decodeLenient(s[i : end+1])
		if err == nil {
			return v, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		i = end
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, errNoJSON
}

// maxField bounds, in bytes, one string the controller writes in its JSON
// (an argument's value, a name, a reason): a plan's token limit bounds the
// whole, this any one of its parts — a quoted document is cut, with an
// ellipsis, rather than flood every pane, log line and saved session.
const maxField = 16 << 10

// cleanDecoded cleans every string of a JSON value the controller wrote,
// keys and values: JSON escapes ("\u001b[2J", "\u003c|im_start|\u003e")
// decode to what text.CleanGenerated removes from the raw reply, and a
// field is capped at maxField.
func cleanDecoded(v any) any {
	switch x := v.(type) {
	case string:
		s, _ := text.ClipBytes(text.CleanGenerated(x), maxField)
		return s
	case []any:
		for i := range x {
			x[i] = cleanDecoded(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[cleanDecoded(k).(string)] = cleanDecoded(e)
		}
		return out
	}
	return v
}

var fence = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*(.*?)```")

// decodeLenient parses JSON after removing trailing commas and comments
// outside strings, the two slips models make most.
func decodeLenient(s string) (any, error) {
	var v any
	err := json.Unmarshal([]byte(s), &v)
	if err == nil {
		return cleanDecoded(v), nil
	}
	if err2 := json.Unmarshal([]byte(cleanJSON(s)), &v); err2 == nil {
		return cleanDecoded(v), nil
	}
	return nil, fmt.Errorf("the reply's JSON does not parse: %w", err)
}

// jsonStrings tracks whether a byte-by-byte scan of JSON text is inside a
// string literal, so brackets, commas and slashes in strings are ignored.
type jsonStrings struct{ in, esc bool }

// inside reports whether c (the next byte) belongs to a string literal,
// its quotes included.
func (j *jsonStrings) inside(c byte) bool {
	switch {
	case j.in && j.esc:
		j.esc = false
	case j.in && c == '\\':
		j.esc = true
	case j.in && c == '"':
		j.in = false
		return true
	case !j.in && c == '"':
		j.in = true
	}
	return j.in
}

func cleanJSON(s string) string {
	var b strings.Builder
	var str jsonStrings
	for i := 0; i < len(s); i++ {
		c := s[i]
		if str.inside(c) {
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ',':
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == ']' || s[j] == '}') {
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// matchBracket returns the index of the bracket closing the one at start.
func matchBracket(s string, start int) (int, bool) {
	var stack []byte
	var str jsonStrings
	for i := start; i < len(s); i++ {
		c := s[i]
		if str.inside(c) {
			continue
		}
		switch c {
		case '[', '{':
			stack = append(stack, c)
		case ']', '}':
			if len(stack) == 0 {
				return 0, false
			}
			open := stack[len(stack)-1]
			if (open == '[') != (c == ']') {
				return 0, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

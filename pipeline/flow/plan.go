package flow

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// Task is one step of a plan, in HuggingGPT's format: a task name, a unique
// id, the ids it depends on, and its arguments. An argument value of the form
// "<resource>-N" stands for the output of task N.
type Task struct {
	ID   int               `json:"id"`
	Task string            `json:"task"`
	Dep  []int             `json:"dep"`
	Args map[string]string `json:"args"`
}

// Plan is the validated task list of one turn.
type Plan struct {
	Tasks []Task `json:"tasks"`
	// Constraints are those the planner read from the request, merged with
	// the user's standing constraints.
	Constraints Constraints `json:"constraints,omitzero"`
	// Notes record every repair the validator made and every task it
	// dropped, with the reason, so the user sees what changed.
	Notes []string `json:"notes,omitempty"`
}

// Task returns the task with the given id.
func (p *Plan) Task(id int) (Task, bool) {
	for _, t := range p.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return Task{}, false
}

// resourceRef matches "<resource>-N" (and the "<GENERATED>-N" spelling the
// HuggingGPT demos use) anywhere in an argument value.
var resourceRef = regexp.MustCompile(`<(?i:resource|generated)>-(\d+)`)

// ReplaceRefs returns value with each reference to a task's output
// (<resource>-N) replaced by what with returns for it: ref is the
// reference as written, id its number — 0, with ok false, when it has too
// many digits to be one.
func ReplaceRefs(value string, with func(ref string, id int, ok bool) string) string {
	return resourceRef.ReplaceAllStringFunc(value, func(m string) string {
		n, err := strconv.Atoi(resourceRef.FindStringSubmatch(m)[1])
		return with(m, n, err == nil)
	})
}

// Refs returns the task ids an argument value refers to, in order.
func Refs(value string) []int {
	var out []int
	for _, m := range resourceRef.FindAllStringSubmatch(value, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// RefString returns the reference to task id's output.
func RefString(id int) string { return fmt.Sprintf("<resource>-%d", id) }

// SubstituteRefs replaces every reference in value using out; ok is false if
// a referenced id has no output.
func SubstituteRefs(value string, out func(id int) (string, bool)) (string, bool) {
	ok := true
	s := resourceRef.ReplaceAllStringFunc(value, func(m string) string {
		n, err := strconv.Atoi(resourceRef.FindStringSubmatch(m)[1])
		if err != nil { // too many digits: Refs does not count it either
			return m
		}
		v, found := out(n)
		if !found {
			ok = false
			return m
		}
		return v
	})
	return s, ok
}

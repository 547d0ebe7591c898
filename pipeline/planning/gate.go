package planning

import (
	"errors"
	"maps"
	"slices"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// gateArgs is the validator's early look through the same gate, at the
// values the plan wrote (its <resource>-N references are judged when they
// have their values, by the executor's gateArgs), as the skill's models
// would read them: a task naming a path the turn may not read is dropped
// before anything runs, with a note naming the path and the fix; a value
// without references goes on as the tool is to get it (the path judged),
// so the plan shown is what runs.
func (v *validator) gateArgs(t *flow.Task, s *skills.Skill) {
	if _, gone := v.dropped[t.ID]; gone || s == nil {
		return
	}
	r := scope.Reader{}
	if v.reader != nil {
		r = v.reader(s)
	}
	for _, k := range slices.Sorted(maps.Keys(t.Args)) {
		if a, _ := s.Arg(k); a.Type.Media() {
			continue // checked as a file (checkArgs)
		}
		val := flow.ReplaceRefs(t.Args[k], func(string, int, bool) string { return " " })
		got, err := v.scope.GateFor(val, flow.ArgReader(r, s, k))
		if err != nil {
			var de *scope.DeniedError
			what := val
			if errors.As(err, &de) {
				what = de.What
			}
			v.refuse(*t, what, err)
			return
		}
		if val == t.Args[k] && got != val {
			t.Args[k] = got
		}
	}
}

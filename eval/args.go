package eval

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/chorusai/chorus/pipeline"
)

// ArgScore counts, for one run, the gold's arguments the plan got right.
// A gold plan lists only the arguments its request determines: a
// reference to an earlier task's output, a file, a text the user gave
// word for word, a point or a box. Each is right when the plan's task
// matched to that gold task (the node F1 matching) has the argument with:
//   - a reference ("<resource>-N"): references to the plan's tasks matched
//     to the gold's referenced tasks, exactly those;
//   - a file ("{name}" in the gold, as the suite's files are written): a
//     path whose base name is that file's;
//   - a point or a box (numbers only): as many numbers, each within 2% of
//     the gold's (of 1 for fractions);
//   - a text: the same words, ignoring case, spacing and the punctuation
//     around them.
//
// A gold task the plan misses gets none of its arguments right.
func ArgScore(gold, plan []pipeline.Task) Rate {
	var r Rate
	m := bestMapping(GraphOf(gold), GraphOf(plan), true)
	goldIndex := map[int]int{}
	for i, t := range gold {
		if _, dup := goldIndex[t.ID]; !dup {
			goldIndex[t.ID] = i
		}
	}
	for i, g := range gold {
		for name, want := range g.Args {
			var got string
			ok := false
			if j := m[i]; j >= 0 {
				got, ok = plan[j].Args[name]
			}
			r.add(ok && argRight(want, got, func(id int) int {
				k, ok := goldIndex[id]
				if !ok || m[k] < 0 {
					return -1
				}
				return plan[m[k]].ID
			}))
		}
	}
	return r
}

// placeholder is a suite's file reference in a gold argument.
var placeholder = regexp.MustCompile(`^\{([^{}/\\]+)\}$`)

// coords are numbers only: a point or a box.
var coords = regexp.MustCompile(`^\s*-?[0-9.]+(\s*[, ]\s*-?[0-9.]+)+\s*$`)

// argRight compares one gold argument with the plan's; planID maps a gold
// task id to the id of the plan's task matched to it (-1: none).
func argRight(want, got string, planID func(int) int) bool {
	if refs := pipeline.Refs(want); len(refs) > 0 {
		var expect []int
		for _, id := range refs {
			p := planID(id)
			if p < 0 {
				return false
			}
			expect = append(expect, p)
		}
		have := pipeline.Refs(got)
		slices.Sort(expect)
		slices.Sort(have)
		return slices.Equal(expect, have)
	}
	if m := placeholder.FindStringSubmatch(want); m != nil {
		return got != "" && filepath.Base(got) == m[1]
	}
	if coords.MatchString(want) {
		a, b := numbers(want), numbers(got)
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if d := a[i] - b[i]; d > 0.02*max(abs(a[i]), 1) || -d > 0.02*max(abs(a[i]), 1) {
				return false
			}
		}
		return true
	}
	return words(want) == words(got)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func numbers(s string) []float64 {
	var out []float64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || unicode.IsSpace(r) || r == '[' || r == ']' || r == '(' || r == ')'
	}) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil
		}
		out = append(out, x)
	}
	return out
}

// words is a text as compared: lower case, words separated by one space,
// no punctuation or quotes around them.
func words(s string) string {
	f := strings.Fields(strings.ToLower(s))
	for i, w := range f {
		f[i] = strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
	}
	return strings.Join(slices.DeleteFunc(f, func(w string) bool { return w == "" }), " ")
}

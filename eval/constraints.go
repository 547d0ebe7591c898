package eval

import (
	"math"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline"
)

// ConstraintsRight reports whether a plan's constraints are the gold's:
// the limits the user put on model selection, read from the request
// (pipeline.Constraints, the plan's "constraints" object). They are the
// same when selection would apply the same limits:
//   - the same licence allow-list, in any order and case ("Apache 2.0" is
//     apache-2.0);
//   - the same size bound, both on weights or both on parameters, equal
//     within 1% or read in binary units (a "1GB" bound written as 1024MB
//     or 1GiB);
//   - local-only on both or neither;
//   - the same preference, and for "best" the same benchmark words in any
//     order ("common_voice wer" is "WER on Common Voice");
//   - the same tasks the constraints are limited to, if any.
func ConstraintsRight(gold, plan pipeline.Constraints) bool {
	return slices.Equal(licences(gold.Licenses), licences(plan.Licenses)) &&
		sameLimit(gold, plan) &&
		gold.LocalOnly == plan.LocalOnly &&
		gold.Prefer == plan.Prefer &&
		(gold.Prefer != pipeline.PreferBest || slices.Equal(benchWords(gold.Benchmark), benchWords(plan.Benchmark))) &&
		slices.Equal(sortedSet(gold.Tasks, strings.TrimSpace), sortedSet(plan.Tasks, strings.TrimSpace))
}

// licences normalises licence ids: lower case, words joined by hyphens.
func licences(l []string) []string {
	return sortedSet(l, func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '_' }), "-")
	})
}

func sortedSet(l []string, norm func(string) string) []string {
	var out []string
	for _, s := range l {
		if s = norm(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// sameLimit compares two size bounds (MaxSize) of the same kind.
func sameLimit(x, y pipeline.Constraints) bool {
	a, b := x.MaxSize, y.MaxSize
	switch {
	case a.IsZero() || b.IsZero():
		return a.IsZero() && b.IsZero()
	case a.Bytes > 0 && b.Bytes > 0:
		return closeOrBinary(float64(a.Bytes), float64(b.Bytes))
	case a.Params > 0 && b.Params > 0:
		return closeOrBinary(float64(a.Params), float64(b.Params))
	}
	return false // one bounds weights, the other parameters
}

// closeOrBinary: within 1%, or apart by the factor between a decimal and
// a binary unit (1024/1000 for k, its square for M, its cube for G).
func closeOrBinary(a, b float64) bool {
	r := max(a, b) / min(a, b)
	for _, f := range []float64{1, 1.024, 1.024 * 1.024, 1.024 * 1.024 * 1.024} {
		if math.Abs(r/f-1) <= 0.01 {
			return true
		}
	}
	return false
}

// benchWords are a benchmark's words as selection matches them
// (pipeline.BenchmarkScore): lower case, split at punctuation, without
// filler words, "english" as "en"; sorted, since their order means
// nothing.
func benchWords(s string) []string {
	s = strings.NewReplacer("_", " ", "-", " ", "/", " ", ":", " ", ",", " ", "(", " ", ")", " ").Replace(strings.ToLower(s))
	return sortedSet(strings.Fields(s), func(w string) string {
		switch w {
		case "on", "the", "score", "best", "of", "a":
			return ""
		case "english":
			return "en"
		}
		return w
	})
}

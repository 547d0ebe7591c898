package flow

import (
	"slices"
	"strings"

	"github.com/chorusai/chorus/skills"
)

// benchmarkWords splits a benchmark description into comparable words.
func benchmarkWords(s string) []string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("_", " ", "-", " ", "/", " ", ":", " ", ",", " ", "(", " ", ")", " ").Replace(s)
	var out []string
	for _, w := range strings.Fields(s) {
		switch w {
		case "english":
			w = "en"
		case "on", "the", "score", "best", "of", "a":
			continue
		}
		out = append(out, w)
	}
	return out
}

// BenchmarkScore finds m's recorded result matching query ("common_voice
// wer"): every word of the query must appear in the result's dataset or
// metric.
func BenchmarkScore(m skills.Model, query string) (skills.Benchmark, bool) {
	want := benchmarkWords(query)
	if len(want) == 0 {
		return skills.Benchmark{}, false
	}
	for _, b := range m.Benchmarks {
		have := benchmarkWords(b.Dataset + " " + b.Metric)
		all := true
		for _, w := range want {
			if !slices.ContainsFunc(have, func(h string) bool { return h == w || (len(w) > 3 && strings.HasPrefix(h, w)) }) {
				all = false
				break
			}
		}
		if all {
			return b, true
		}
	}
	return skills.Benchmark{}, false
}

// SkillHasBenchmark reports whether some model of s records a result on
// the benchmark query names ("common_voice wer").
func SkillHasBenchmark(s *skills.Skill, query string) bool {
	return slices.ContainsFunc(s.Models, func(m skills.Model) bool {
		_, ok := BenchmarkScore(m, query)
		return ok
	})
}

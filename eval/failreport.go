package eval

import (
	"encoding/json"
	"fmt"
	"io"
)

// FailureSummary is one model's run of a failure suite: how often the
// request was served without the revision of the plan and with it.
type FailureSummary struct {
	Model  string `json:"model"`
	Suite  string `json:"suite"`
	Cases  int    `json:"cases"`
	Repeat int    `json:"repeat"`
	// Interrupted and Error say why the run stopped early, as Summary's.
	Interrupted bool   `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
	// ServedWithout and ServedWith are the success rates without and
	// with revision; Revised how often a revision was asked, Empty how
	// often it added nothing; Errors the turns that ended without an
	// answer.
	ServedWithout Rate `json:"served_without_revision"`
	ServedWith    Rate `json:"served_with_revision"`
	Revised       Rate `json:"revised"`
	Empty         Rate `json:"revision_added_nothing"`
	Errors        int  `json:"errors"`
	// Calls is the median of the turns' controller calls, LatencyMS of
	// their times.
	Calls     float64         `json:"controller_calls_median"`
	LatencyMS float64         `json:"latency_ms_median"`
	Results   []FailureResult `json:"results"`
}

// SummarizeFailures builds a model's summary from its failure runs.
func SummarizeFailures(model, suite string, cases, repeat int, rs []FailureResult) FailureSummary {
	s := FailureSummary{Model: model, Suite: suite, Cases: cases, Repeat: repeat, Results: rs}
	if s.Results == nil {
		s.Results = []FailureResult{}
	}
	var calls, latency []float64
	for _, r := range rs {
		s.ServedWithout.add(r.ServedWithout)
		s.ServedWith.add(r.ServedWith)
		s.Revised.add(r.Revised)
		if r.Revised {
			s.Empty.add(len(r.Added) == 0)
		}
		if r.Error != "" {
			s.Errors++
		}
		calls = append(calls, float64(r.Calls))
		latency = append(latency, float64(r.LatencyMS))
	}
	s.Calls, s.LatencyMS = median(calls), median(latency)
	return s
}

// WriteFailuresJSON writes the summaries as one JSON document.
func WriteFailuresJSON(w io.Writer, sums []FailureSummary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Models []FailureSummary `json:"models"`
	}{sums})
}

// WriteFailures writes the failure table: a row per measure, a column per
// model, then a row per case with how often each model served it
// without/with revision — within 80 columns for a few models.
func WriteFailures(w io.Writer, sums []FailureSummary) error {
	if len(sums) == 0 {
		return nil
	}
	s0 := sums[0]
	fmt.Fprintf(w, "suite %s · %d request(s) × %d · scripted failing experts\n", s0.Suite, s0.Cases, s0.Repeat)
	head := []string{"metric"}
	for _, s := range sums {
		name := s.Model
		switch {
		case s.Interrupted:
			name += " (interrupted)"
		case s.Error != "":
			name += " (stopped)"
		}
		head = append(head, name)
	}
	grid := [][]string{head}
	add := func(label string, f func(s FailureSummary) string) {
		r := []string{label}
		for _, s := range sums {
			r = append(r, f(s))
		}
		grid = append(grid, r)
	}
	add("runs", func(s FailureSummary) string { return fmt.Sprint(len(s.Results)) })
	add("served without revision", func(s FailureSummary) string { return pct(s.ServedWithout) })
	add("served with revision", func(s FailureSummary) string { return pct(s.ServedWith) })
	add("gained by revision", func(s FailureSummary) string {
		if s.ServedWith.Of == 0 {
			return "–"
		}
		return fmt.Sprintf("%+.0f pt", 100*(s.ServedWith.Value()-s.ServedWithout.Value()))
	})
	add("plan revised", func(s FailureSummary) string { return pct(s.Revised) })
	add("revision added nothing", func(s FailureSummary) string { return pct(s.Empty) })
	add("controller calls, median", func(s FailureSummary) string { return fmt.Sprintf("%.0f", s.Calls) })
	add("turn latency, median", func(s FailureSummary) string { return seconds(s.LatencyMS) })
	add("turns without an answer", func(s FailureSummary) string { return fmt.Sprint(s.Errors) })
	// Per case, in the suite's order: served without → with, of its runs.
	var ids []string
	seen := map[string]bool{}
	for _, s := range sums {
		for _, r := range s.Results {
			if !seen[r.Case] {
				seen[r.Case] = true
				ids = append(ids, r.Case)
			}
		}
	}
	for _, id := range ids {
		add("  "+id, func(s FailureSummary) string {
			var without, with Rate
			for _, r := range s.Results {
				if r.Case == id {
					without.add(r.ServedWithout)
					with.add(r.ServedWith)
				}
			}
			if with.Of == 0 {
				return "–"
			}
			return fmt.Sprintf("%d→%d/%d", without.Hits, with.Hits, with.Of)
		})
	}
	return writeGrid(w, grid)
}

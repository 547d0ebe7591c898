package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Rate is a count of hits among runs.
type Rate struct {
	Hits int `json:"hits"`
	Of   int `json:"of"`
}

// Value is the rate as a fraction; NaN when there is nothing to count.
func (r Rate) Value() float64 {
	if r.Of == 0 {
		return math.NaN()
	}
	return float64(r.Hits) / float64(r.Of)
}

func (r *Rate) add(hit bool) {
	r.Of++
	if hit {
		r.Hits++
	}
}

// Metrics aggregates results: a model's over a whole suite, or over the
// cases of one gold shape.
type Metrics struct {
	Runs int `json:"runs"`
	// Errors counts runs whose controller call failed (they score as
	// empty, invalid plans).
	Errors           int  `json:"errors"`
	ValidAsWritten   Rate `json:"valid_as_written"`
	ValidAfterRepair Rate `json:"valid_after_repair"`
	// TaskAccuracy counts only single-task gold plans (HuggingGPT
	// Table 3): the plan is exactly that one task.
	TaskAccuracy Rate `json:"task_accuracy"`
	NodeF1       F1   `json:"node_f1"`
	EdgeF1       F1   `json:"edge_f1"`
	// GED is the mean normalised graph edit distance (0 is perfect).
	GED float64 `json:"ged"`
	TS  Rate    `json:"ts"`
	FoT Rate    `json:"fot"`
	// Medians over runs of the planning stage's latency and tokens.
	LatencyMS        float64 `json:"latency_ms_median"`
	PromptTokens     float64 `json:"prompt_tokens_median"`
	CompletionTokens float64 `json:"completion_tokens_median"`
	// Chosen counts, with selection, the planned tasks that got a model.
	Chosen *Rate `json:"chosen,omitempty"`
	// TaskBench are TaskBench's node F1, link F1 and ed, of the first
	// reply as written and of the plan after repair.
	TaskBench TBReadings `json:"taskbench"`
}

// TBReadings are TaskBench's metrics for the two readings of a run.
type TBReadings struct {
	AsWritten   TBMetrics `json:"as_written"`
	AfterRepair TBMetrics `json:"after_repair"`
}

// Aggregate sums results into metrics; withSelect adds selection's.
func Aggregate(rs []Result, withSelect bool) Metrics {
	m := Metrics{Runs: len(rs)}
	var nm, np, ng, em, ep, eg int
	var ged float64
	var lat, pt, ct []float64
	if withSelect {
		m.Chosen = &Rate{}
	}
	var written, repaired []*TBCounts
	for _, r := range rs {
		if r.TaskBench.AfterRepair != nil {
			// A gold evaluate.py cannot read is no sample in either.
			written = append(written, r.TaskBench.AsWritten)
			repaired = append(repaired, r.TaskBench.AfterRepair)
		}
		s := r.Score
		if r.Error != "" {
			m.Errors++
		}
		m.ValidAsWritten.add(r.ValidAsWritten)
		m.ValidAfterRepair.add(r.Usable)
		if s.GoldNodes == 1 {
			m.TaskAccuracy.add(s.NamesExact)
		}
		nm, np, ng = nm+s.MatchedNodes, np+s.PredNodes, ng+s.GoldNodes
		em, ep, eg = em+s.MatchedEdges, ep+s.PredEdges, eg+s.GoldEdges
		ged += s.GEDNorm
		m.TS.add(s.TS)
		m.FoT.add(s.FoT)
		lat = append(lat, float64(r.LatencyMS))
		pt = append(pt, float64(r.PromptTokens))
		ct = append(ct, float64(r.CompletionTokens))
		if withSelect {
			m.Chosen.Hits += r.Chosen
			m.Chosen.Of += r.Tasks
		}
	}
	m.TaskBench = TBReadings{AsWritten: TBAggregate(written), AfterRepair: TBAggregate(repaired)}
	m.NodeF1 = PooledF1(nm, np, ng)
	m.EdgeF1 = PooledF1(em, ep, eg)
	if len(rs) > 0 {
		m.GED = ged / float64(len(rs))
	}
	m.LatencyMS, m.PromptTokens, m.CompletionTokens = median(lat), median(pt), median(ct)
	return m
}

// median of xs; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Columns are the table's columns: every run, then the runs of each gold
// shape.
var Columns = []string{"all", ShapeSingle, ShapeChain, ShapeGraph}

// Summary is one model's evaluation on a suite.
type Summary struct {
	Model string `json:"model"`
	Suite string `json:"suite"`
	// Cases and Repeat are what was asked; Metrics["all"].Runs is what
	// ran (fewer when interrupted).
	Cases  int  `json:"cases"`
	Repeat int  `json:"repeat"`
	Select bool `json:"select"`
	// Interrupted says the run stopped early (Ctrl+C); Error says why a
	// model's run stopped (not pulled, server gone).
	Interrupted bool   `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
	// Metrics by column: "all", "single", "chain", "graph".
	Metrics map[string]Metrics `json:"metrics"`
	Results []Result           `json:"results"`
}

// Summarize builds a model's summary from its results.
func Summarize(model, suite string, cases, repeat int, withSelect bool, rs []Result) Summary {
	s := Summary{Model: model, Suite: suite, Cases: cases, Repeat: repeat, Select: withSelect, Metrics: map[string]Metrics{}, Results: rs}
	if s.Results == nil {
		s.Results = []Result{}
	}
	for _, col := range Columns {
		var part []Result
		for _, r := range rs {
			if col == "all" || r.Shape == col {
				part = append(part, r)
			}
		}
		s.Metrics[col] = Aggregate(part, withSelect)
	}
	return s
}

// WriteJSON writes the summaries as one JSON document.
func WriteJSON(w io.Writer, sums []Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Models []Summary `json:"models"`
	}{sums})
}

// row is one line of the table: a label and how to read a column.
type row struct {
	label string
	value func(m Metrics) string
}

func pct(r Rate) string {
	if r.Of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*r.Value())
}

func f1(f F1) string {
	if !f.Defined {
		return "–"
	}
	return fmt.Sprintf("%.2f", f.F1)
}

func counted(m Metrics, s string) string {
	if m.Runs == 0 {
		return "–"
	}
	return s
}

var rows = []row{
	{"valid plan, as written", func(m Metrics) string { return pct(m.ValidAsWritten) }},
	{"valid plan, after repair", func(m Metrics) string { return pct(m.ValidAfterRepair) }},
	{"task-name accuracy", func(m Metrics) string { return pct(m.TaskAccuracy) }},
	{"node F1", func(m Metrics) string { return f1(m.NodeF1) }},
	{"edge F1 (dependencies)", func(m Metrics) string { return f1(m.EdgeF1) }},
	{"graph edit distance (0 best)", func(m Metrics) string { return counted(m, fmt.Sprintf("%.2f", m.GED)) }},
	{"TS  task selection", func(m Metrics) string { return pct(m.TS) }},
	{"FoT flow of tasks", func(m Metrics) string { return pct(m.FoT) }},
	{"planning latency, median", func(m Metrics) string { return counted(m, seconds(m.LatencyMS)) }},
	{"prompt tokens, median", func(m Metrics) string { return counted(m, fmt.Sprintf("%.0f", m.PromptTokens)) }},
	{"completion tokens, median", func(m Metrics) string { return counted(m, fmt.Sprintf("%.0f", m.CompletionTokens)) }},
}

func seconds(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.1fs", ms/1000)
}

// WriteTable writes one model's table: a heading, then a metric per row
// and a column per shape — under 70 columns, plain text (no colour), so it
// reads in an 80-column terminal, in a log and under NO_COLOR.
func WriteTable(w io.Writer, s Summary) error {
	all := s.Metrics["all"]
	head := fmt.Sprintf("%s · suite %s · %d request(s)", s.Model, s.Suite, s.Cases)
	if s.Repeat > 1 {
		head += fmt.Sprintf(" × %d", s.Repeat)
	}
	// What stopped the run goes on a line of its own, so the heading stays
	// within 80 columns.
	switch {
	case s.Error != "":
		head += fmt.Sprintf("\nstopped after %d run(s): %s", all.Runs, s.Error)
	case s.Interrupted:
		head += fmt.Sprintf("\ninterrupted after %d of %d run(s)", all.Runs, s.Cases*max(s.Repeat, 1))
	}
	if _, err := fmt.Fprintln(w, head); err != nil {
		return err
	}
	grid := [][]string{append([]string{"metric"}, Columns...)}
	runs := []string{"runs"}
	for _, c := range Columns {
		runs = append(runs, fmt.Sprint(s.Metrics[c].Runs))
	}
	grid = append(grid, runs)
	table := rows
	if s.Select {
		table = append(slices.Clone(rows), row{"tasks given a model", func(m Metrics) string {
			if m.Chosen == nil {
				return "–"
			}
			return pct(*m.Chosen)
		}})
	}
	table = append(table, row{"controller errors", func(m Metrics) string { return fmt.Sprint(m.Errors) }})
	for _, r := range table {
		var cells []string
		for _, c := range Columns {
			cells = append(cells, r.value(s.Metrics[c]))
		}
		grid = append(grid, append([]string{r.label}, cells...))
	}
	return writeGrid(w, grid)
}

// writeGrid writes rows of cells: the first column left-aligned, the
// others right-aligned, two spaces apart.
func writeGrid(w io.Writer, grid [][]string) error {
	widths := map[int]int{}
	for _, r := range grid {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range grid {
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i == 0 {
				b.WriteString(c + pad)
				continue
			}
			b.WriteString("  " + pad + c)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

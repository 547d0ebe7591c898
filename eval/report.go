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
	// Arguments pools the gold arguments the plans got right.
	Arguments Rate `json:"arguments"`
	// Constraints counts, among runs whose request has constraints, the
	// plans whose constraints are right (ConstraintsRight);
	// ConstraintsInvented, among runs whose request has none, the plans
	// that set some anyway.
	Constraints         Rate `json:"constraints"`
	ConstraintsInvented Rate `json:"constraints_invented"`
	FoT                 Rate `json:"fot"`
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
		m.Arguments.Hits += r.Arguments.Hits
		m.Arguments.Of += r.Arguments.Of
		if r.ConstraintsRight != nil {
			m.Constraints.add(*r.ConstraintsRight)
		} else {
			m.ConstraintsInvented.add(r.Constraints != "")
		}
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

// row is one line of the table: a label, how to show a column's value,
// and — for marking the best model — its number and which way is better.
type row struct {
	label string
	value func(m Metrics) string
	// num is the value to compare models by; ok false when there is
	// none. lower says smaller is better. A row without num is not
	// compared.
	num   func(m Metrics) (float64, bool)
	lower bool
}

func pct(r Rate) string {
	if r.Of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*r.Value())
}

func rateNum(r Rate) (float64, bool) { return r.Value(), r.Of > 0 }

func f1(f F1) string {
	if !f.Defined {
		return "–"
	}
	return fmt.Sprintf("%.2f", f.F1)
}

func f1Num(f F1) (float64, bool) { return f.F1, f.Defined }

func counted(m Metrics, s string) string {
	if m.Runs == 0 {
		return "–"
	}
	return s
}

// tbLinks is TaskBench's link F1 where a link was planned or expected:
// evaluate.py prints 0 for a split without any (its single tasks), which
// says nothing, so the table shows "–" there (the JSON keeps the 0).
func tbLinks(t TBMetrics) F1 {
	if t.Counts.LinkTP+t.Counts.LinkFP+t.Counts.LinkFN == 0 {
		return F1{}
	}
	return t.LinkF1
}

func tbED(t TBMetrics) (float64, bool) { return t.ED, t.Predicted > 0 }

func tbRows(reading string, get func(m Metrics) TBMetrics) []row {
	return []row{
		{"TaskBench node F1, " + reading, func(m Metrics) string { return f1(get(m).NodeF1) }, func(m Metrics) (float64, bool) { return f1Num(get(m).NodeF1) }, false},
		{"TaskBench link F1, " + reading, func(m Metrics) string { return f1(tbLinks(get(m))) }, func(m Metrics) (float64, bool) { return f1Num(tbLinks(get(m))) }, false},
		{"TaskBench ed, " + reading + " (0 best)", func(m Metrics) string {
			if v, ok := tbED(get(m)); ok {
				return fmt.Sprintf("%.2f", v)
			}
			return "–"
		}, func(m Metrics) (float64, bool) { return tbED(get(m)) }, true},
	}
}

func asWritten(m Metrics) TBMetrics   { return m.TaskBench.AsWritten }
func afterRepair(m Metrics) TBMetrics { return m.TaskBench.AfterRepair }

// rows are the table's metrics, in the order docs/eval.md explains them.
var rows = slices.Concat([]row{
	{"valid plan, as written", func(m Metrics) string { return pct(m.ValidAsWritten) }, func(m Metrics) (float64, bool) { return rateNum(m.ValidAsWritten) }, false},
	{"valid plan, after repair", func(m Metrics) string { return pct(m.ValidAfterRepair) }, func(m Metrics) (float64, bool) { return rateNum(m.ValidAfterRepair) }, false},
	{"TaskBench predictions, as written", func(m Metrics) string {
		return pct(Rate{Hits: m.TaskBench.AsWritten.Predicted, Of: m.TaskBench.AsWritten.Samples})
	}, func(m Metrics) (float64, bool) {
		return rateNum(Rate{Hits: m.TaskBench.AsWritten.Predicted, Of: m.TaskBench.AsWritten.Samples})
	}, false},
}, tbRows("as written", asWritten), tbRows("after repair", afterRepair), []row{
	{"task-name accuracy", func(m Metrics) string { return pct(m.TaskAccuracy) }, func(m Metrics) (float64, bool) { return rateNum(m.TaskAccuracy) }, false},
	{"node F1 (multiset)", func(m Metrics) string { return f1(m.NodeF1) }, func(m Metrics) (float64, bool) { return f1Num(m.NodeF1) }, false},
	{"edge F1 (dependencies)", func(m Metrics) string { return f1(m.EdgeF1) }, func(m Metrics) (float64, bool) { return f1Num(m.EdgeF1) }, false},
	{"graph edit distance (0 best)", func(m Metrics) string { return counted(m, fmt.Sprintf("%.2f", m.GED)) }, func(m Metrics) (float64, bool) { return m.GED, m.Runs > 0 }, true},
	{"arguments right", func(m Metrics) string { return pct(m.Arguments) }, func(m Metrics) (float64, bool) { return rateNum(m.Arguments) }, false},
	{"constraints right", func(m Metrics) string { return pct(m.Constraints) }, func(m Metrics) (float64, bool) { return rateNum(m.Constraints) }, false},
	{"constraints invented (0 best)", func(m Metrics) string { return pct(m.ConstraintsInvented) }, func(m Metrics) (float64, bool) { return rateNum(m.ConstraintsInvented) }, true},
	{"TS  task selection", func(m Metrics) string { return pct(m.TS) }, func(m Metrics) (float64, bool) { return rateNum(m.TS) }, false},
	{"FoT flow of thought", func(m Metrics) string { return pct(m.FoT) }, func(m Metrics) (float64, bool) { return rateNum(m.FoT) }, false},
	{"planning latency, median", func(m Metrics) string { return counted(m, seconds(m.LatencyMS)) }, func(m Metrics) (float64, bool) { return m.LatencyMS, m.Runs > 0 }, true},
	{"prompt tokens, median", func(m Metrics) string { return counted(m, fmt.Sprintf("%.0f", m.PromptTokens)) }, func(m Metrics) (float64, bool) { return m.PromptTokens, m.Runs > 0 }, true},
	{"completion tokens, median", func(m Metrics) string { return counted(m, fmt.Sprintf("%.0f", m.CompletionTokens)) }, func(m Metrics) (float64, bool) { return m.CompletionTokens, m.Runs > 0 }, true},
})

// tableRows are rows plus, with selection, its row, and the errors.
func tableRows(withSelect bool) []row {
	table := slices.Clone(rows)
	if withSelect {
		table = append(table, row{"tasks given a model", func(m Metrics) string {
			if m.Chosen == nil {
				return "–"
			}
			return pct(*m.Chosen)
		}, func(m Metrics) (float64, bool) {
			if m.Chosen == nil {
				return 0, false
			}
			return rateNum(*m.Chosen)
		}, false})
	}
	return append(table, row{"controller errors", func(m Metrics) string { return fmt.Sprint(m.Errors) }, func(m Metrics) (float64, bool) { return float64(m.Errors), m.Runs > 0 }, true})
}

func seconds(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.1fs", ms/1000)
}

// heading is a model's first line, and what stopped its run.
func heading(s Summary) string {
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
	return head
}

// WriteTable writes one model's table: a heading, then a metric per row
// and a column per shape — under 80 columns, plain text (no colour), so it
// reads in an 80-column terminal, in a log and under NO_COLOR.
func WriteTable(w io.Writer, s Summary) error {
	if _, err := fmt.Fprintln(w, heading(s)); err != nil {
		return err
	}
	grid := [][]string{append([]string{"metric"}, Columns...)}
	runs := []string{"runs"}
	for _, c := range Columns {
		runs = append(runs, fmt.Sprint(s.Metrics[c].Runs))
	}
	grid = append(grid, runs)
	for _, r := range tableRows(s.Select) {
		var cells []string
		for _, c := range Columns {
			cells = append(cells, r.value(s.Metrics[c]))
		}
		grid = append(grid, append([]string{r.label}, cells...))
	}
	return writeGrid(w, grid)
}

// compareByShape are the rows the side-by-side table repeats for each
// gold shape: where models differ most.
var compareByShape = []string{"TaskBench node F1, as written", "TaskBench link F1, as written", "node F1 (multiset)", "FoT flow of thought"}

// Width is the width the side-by-side table keeps within.
const Width = 80

// WriteComparison writes one table for several models: a column per
// model, a row per metric (over all requests, then the rows that differ
// most for each gold shape), the best value of each row marked with "*"
// (ties for the best all marked; a row where every model has the same
// value, or only one has a value, is not). Model
// names too wide for a column become letters with a key above. Within
// 80 columns: with more models than fit, the columns continue in a
// second block under the first.
func WriteComparison(w io.Writer, sums []Summary) error {
	if len(sums) == 1 {
		return WriteTable(w, sums[0])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "suite %s · %d request(s)", sums[0].Suite, sums[0].Cases)
	if sums[0].Repeat > 1 {
		fmt.Fprintf(&b, " × %d", sums[0].Repeat)
	}
	fmt.Fprintf(&b, " · %d models · * best in its row\n", len(sums))
	for _, s := range sums {
		all := s.Metrics["all"]
		switch {
		case s.Error != "":
			fmt.Fprintf(&b, "%s stopped after %d run(s): %s\n", s.Model, all.Runs, s.Error)
		case s.Interrupted:
			fmt.Fprintf(&b, "%s interrupted after %d of %d run(s)\n", s.Model, all.Runs, s.Cases*max(s.Repeat, 1))
		}
	}
	lines := comparisonLines(sums)
	labelW := 0
	for _, l := range lines {
		labelW = max(labelW, utf8.RuneCountInString(l.label))
	}
	cells, cellW := markedCells(lines, sums)
	// Headers: the model names, or letters when a name is too wide.
	names := make([]string, len(sums))
	maxName := 0
	for k, s := range sums {
		names[k] = s.Model
		maxName = max(maxName, utf8.RuneCountInString(s.Model)+1)
	}
	colW := max(cellW, maxName)
	fits := func(w int) bool { return labelW+len(sums)*(w+2) <= Width }
	if maxName > 12 || (!fits(colW) && colW > max(cellW, 2)) {
		// Letters: the key above the table says which is which.
		colW = max(cellW, 2)
		for k, s := range sums {
			names[k] = string(rune('A' + k%26))
			fmt.Fprintf(&b, "  %s  %s\n", names[k], s.Model)
		}
	}
	perBlock := max(1, (Width-labelW)/(colW+2))
	for start := 0; start < len(sums); start += perBlock {
		end := min(len(sums), start+perBlock)
		if start > 0 {
			b.WriteString("\n")
		}
		b.WriteString(pad("metric", labelW))
		for k := start; k < end; k++ {
			b.WriteString("  " + padLeft(names[k]+" ", colW))
		}
		b.WriteString("\n" + pad("runs", labelW))
		for k := start; k < end; k++ {
			b.WriteString("  " + padLeft(fmt.Sprint(sums[k].Metrics["all"].Runs)+" ", colW))
		}
		b.WriteString("\n")
		for i, l := range lines {
			b.WriteString(pad(l.label, labelW))
			if l.r.value != nil {
				for k := start; k < end; k++ {
					b.WriteString("  " + padLeft(cells[i][k], colW))
				}
			}
			b.WriteString("\n")
		}
	}
	var out strings.Builder
	for _, ln := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		out.WriteString(strings.TrimRight(ln, " ") + "\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s))) + s
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

// compareLine is one line of the comparison table: a metric's row for the
// requests of column col, or (no value) a heading.
type compareLine struct {
	label string
	r     row
	col   string
}

// comparisonLines are the comparison's lines: every metric over all
// requests, then, for each kind of request some model ran, the metrics
// compared by shape.
func comparisonLines(sums []Summary) []compareLine {
	withSelect := slices.ContainsFunc(sums, func(s Summary) bool { return s.Select })
	var lines []compareLine
	for _, r := range tableRows(withSelect) {
		lines = append(lines, compareLine{r.label, r, "all"})
	}
	for _, col := range Columns[1:] {
		if !slices.ContainsFunc(sums, func(s Summary) bool { return s.Metrics[col].Runs > 0 }) {
			continue
		}
		lines = append(lines, compareLine{label: col + " requests"})
		for _, r := range rows {
			if slices.Contains(compareByShape, r.label) {
				lines = append(lines, compareLine{"  " + r.label, r, col})
			}
		}
	}
	return lines
}

// markedCells are the table's cells — cells[i][k]: line i, model k, with
// the mark ("*" best, or " ") after — and the widest one's width.
func markedCells(lines []compareLine, sums []Summary) ([][]string, int) {
	cells := make([][]string, len(lines))
	cellW := 0
	for i, l := range lines {
		if l.r.value == nil {
			continue
		}
		// A row is marked only where some model is worse: a tie of all
		// says nothing.
		best, worst, found := 0.0, 0.0, false
		for _, s := range sums {
			if v, ok := l.r.num(s.Metrics[l.col]); ok && !math.IsNaN(v) {
				if l.r.lower {
					v = -v
				}
				if !found {
					best, worst, found = v, v, true
				}
				best, worst = max(best, v), min(worst, v)
			}
		}
		for _, s := range sums {
			m := s.Metrics[l.col]
			mark := " "
			v, ok := l.r.num(m)
			if l.r.lower {
				v = -v
			}
			if ok && best > worst && v == best {
				mark = "*"
			}
			c := l.r.value(m) + mark
			cells[i] = append(cells[i], c)
			cellW = max(cellW, utf8.RuneCountInString(c))
		}
	}
	return cells, cellW
}

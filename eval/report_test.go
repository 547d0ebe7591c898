package eval

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWriteTableInterrupted(t *testing.T) {
	rs := []Result{{Case: "a", Shape: ShapeSingle, ValidAsWritten: true, Usable: true,
		Score: Compare(GraphOf(nil), GraphOf(nil))}}
	s := Summarize("qwen2.5-coder:32b-instruct-q4_K_M", "chorus", 64, 3, false, rs)
	s.Interrupted = true
	var b bytes.Buffer
	if err := WriteTable(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "\ninterrupted after 1 of 192 run(s)\n") {
		t.Errorf("no interruption line:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	// Columns without runs read "–", not 0% or NaN.
	if strings.Contains(out, "NaN") || !strings.Contains(out, "–") {
		t.Errorf("empty columns:\n%s", out)
	}
}

func TestWriteJSONHasNoNaN(t *testing.T) {
	// A suite of one single task: edge F1 is undefined, the chain and
	// graph columns are empty — and the document is still valid JSON.
	s := Summarize("m", "s", 1, 1, true, []Result{{Case: "a", Shape: ShapeSingle, Score: Compare(GraphOf(nil), GraphOf(nil))}})
	var b bytes.Buffer
	if err := WriteJSON(&b, []Summary{s}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
}

// TestWriteComparisonFits80Columns: however many models and however long
// their names, the side-by-side table stays within 80 columns and names
// every model; each row marks only its best value.
func TestWriteComparisonFits80Columns(t *testing.T) {
	good := Result{Case: "a", Shape: ShapeChain, ValidAsWritten: true, Usable: true, LatencyMS: 900,
		Score: Compare(GraphOf(nil), GraphOf(nil))}
	bad := good
	bad.Usable, bad.LatencyMS = false, 15000
	for _, n := range []int{2, 3, 5, 9} {
		var sums []Summary
		for k := range n {
			r := bad
			if k == 1 {
				r = good
			}
			sums = append(sums, Summarize(strings.Repeat("m", 8+4*k)+":latest", "chorus", 1, 1, false, []Result{r}))
		}
		var b bytes.Buffer
		if err := WriteComparison(&b, sums); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, line := range strings.Split(out, "\n") {
			if w := utf8.RuneCountInString(line); w > 80 {
				t.Errorf("%d models: a line of %d columns: %q", n, w, line)
			}
		}
		for _, s := range sums {
			if !strings.Contains(out, s.Model) {
				t.Errorf("%d models: %s is not named:\n%s", n, s.Model, out)
			}
		}
		// The second model alone is usable and fastest.
		// (With many models the columns continue in a second block.)
		for _, label := range []string{"valid plan, after repair", "planning latency, median"} {
			marks := 0
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, label) {
					marks += strings.Count(line, "*")
				}
			}
			if marks != 1 {
				t.Errorf("%d models: %s marks %d cells, want 1:\n%s", n, label, marks, out)
			}
		}
	}
}

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

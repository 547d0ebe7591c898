package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

// maxFileLines bounds a non-test Go file: past it a file holds more than
// one concept and the next reader cannot find their room in it.
const maxFileLines = 800

// oversized are the files still over the bound, each with the work that
// removes it. The test fails when one of them is back under the bound, so
// the list only shrinks.
var oversized = map[string]string{}

// TestFileSizes fails when a non-test Go file is longer than maxFileLines.
func TestFileSizes(t *testing.T) {
	lines := map[string]int{}
	for _, p := range testkit.GoFiles(t, ".") {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines[p] = bytes.Count(b, []byte("\n"))
	}
	if len(lines) < 50 {
		t.Fatalf("found only %d Go files: the walk is broken", len(lines))
	}
	for p, n := range lines {
		_, known := oversized[p]
		switch {
		case n > maxFileLines && !known:
			t.Errorf("%s has %d lines, over %d: split it along its concepts, one concept per file", p, n, maxFileLines)
		case n <= maxFileLines && known:
			t.Errorf("%s has %d lines, within %d now: remove it from oversized in filesize_test.go", p, n, maxFileLines)
		}
	}
	for p, why := range oversized {
		if _, ok := lines[p]; !ok {
			t.Errorf("%s (in oversized: %s) is gone: remove it from oversized in filesize_test.go", p, why)
		}
	}
}

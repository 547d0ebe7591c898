// Command testsum reads `go test -json` on stdin and writes what a plain
// `go test` shows — each package's result, a failed test's output, build
// errors — then, at the end, every skipped test with its reason: tests that
// need tesseract, espeak-ng, ffmpeg, tmux, node or a real Ollama skip on a
// machine without them, and a skip nobody reads hides what a run did not
// check. It exits 1 when a test or a package failed, or a package gave no
// result (go test stopped early), so `go test -json ./... | go run
// ./internal/testsum` fails as go test would (go tool task test). The
// last lines are the ten slowest tests: where the suite's time goes.
//
// The race detector needs cgo and a C compiler, which a machine with only
// Go lacks: `testsum -race-flag` prints go test's -race where it can run
// and nothing elsewhere (the Taskfile passes it on), and a summary run
// without it starts by saying so, in one line.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, goEnv, exec.LookPath))
}

// run is the command: with -race-flag it prints go test's -race where the
// race detector can run (an empty line elsewhere); else it summarizes the
// go test -json on stdin, first saying in one line when the run is
// without the race detector. It returns the exit status: 1 when the run
// or reading it failed.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, goenv func(string) (string, error), lookPath func(string) (string, error)) int {
	flag, why := raceFlag(goenv, lookPath)
	if len(args) > 0 && args[0] == "-race-flag" {
		// For the Taskfile: go test's flag, or nothing where the race
		// detector cannot run.
		fmt.Fprintln(stdout, flag)
		return 0
	}
	if flag == "" {
		fmt.Fprintln(stdout, raceNote(why))
	}
	ok, err := summarize(stdin, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "testsum:", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string  // build-output
	Elapsed    float64 // seconds, on a test's pass, fail or skip
}

// timed is a top-level test and how long it took.
type timed struct {
	pkg, test string
	secs      float64
}

// slowest is how many of the slowest tests a run ends with: where the
// suite's time goes, seen at every run.
const slowest = 10

// skipped is a test that skipped, and why (its output, the skip's message).
type skipped struct {
	pkg, test, reason string
}

// tally is what summarize has read so far.
type tally struct {
	w       io.Writer
	output  map[string]*strings.Builder // a running test's output, by package and name
	open    map[string]bool             // packages started that gave no result yet
	skips   []skipped
	passed  int
	failed  int
	badPkgs []string
	events  int
	times   []timed // top-level tests that ended
}

// summarize copies the run's results from r to w as go test would show them
// and ends with the skipped tests and their reasons; ok is false when
// anything failed or a package gave no result.
func summarize(r io.Reader, w io.Writer) (ok bool, err error) {
	t := &tally{w: w, output: map[string]*strings.Builder{}, open: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20) // a test may log long lines
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // not an event: go's own words
			continue
		}
		t.events++
		t.add(e)
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("reading go test -json: %w", err)
	}
	if t.events == 0 {
		return false, fmt.Errorf("no go test -json events on stdin — run go test -json ./... | go run ./internal/testsum")
	}
	return t.end(), nil
}

// add takes one event into the tally, writing what go test would show.
func (t *tally) add(e event) {
	key := e.Package + " " + e.Test
	if e.Test != "" && !strings.Contains(e.Test, "/") && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
		t.times = append(t.times, timed{e.Package, e.Test, e.Elapsed})
	}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(t.w, e.Output)
	case e.Action == "start":
		t.open[e.Package] = true
	case e.Test == "" && e.Action == "output":
		if e.Output != "PASS\n" {
			fmt.Fprint(t.w, e.Output) // ok/FAIL lines, a panic outside a test
		}
	case e.Test == "" && (e.Action == "pass" || e.Action == "skip" || e.Action == "fail"):
		delete(t.open, e.Package)
		if e.Action == "fail" {
			t.badPkgs = append(t.badPkgs, e.Package)
		}
	case e.Action == "output":
		b := t.output[key]
		if b == nil {
			b = &strings.Builder{}
			t.output[key] = b
		}
		b.WriteString(e.Output)
	case e.Action == "pass":
		t.passed++
		delete(t.output, key)
	case e.Action == "fail":
		t.failed++
		if b := t.output[key]; b != nil {
			fmt.Fprint(t.w, b.String())
		}
		delete(t.output, key)
	case e.Action == "skip":
		t.skips = append(t.skips, skipped{e.Package, e.Test, skipReason(t.output[key])})
		delete(t.output, key)
	}
}

// end writes the totals and the skipped tests, and says whether the run
// passed.
func (t *tally) end() bool {
	var stopped []string
	for p := range t.open {
		stopped = append(stopped, p)
	}
	slices.Sort(stopped)
	for _, p := range stopped {
		fmt.Fprintf(t.w, "FAIL\t%s: no result — go test stopped before the package finished\n", p)
	}
	fmt.Fprintf(t.w, "\n%d tests passed, %d failed, %d skipped", t.passed, t.failed, len(t.skips))
	if n := len(t.badPkgs) + len(stopped); n > 0 {
		fmt.Fprintf(t.w, "; %d package(s) failed", n)
	}
	fmt.Fprintln(t.w)
	if len(t.skips) > 0 {
		fmt.Fprintln(t.w, "Skipped, and why (README: what a full run needs):")
		slices.SortFunc(t.skips, func(a, b skipped) int {
			return strings.Compare(a.pkg+" "+a.test, b.pkg+" "+b.test)
		})
		for _, s := range t.skips {
			fmt.Fprintf(t.w, "  %s %s: %s\n", s.pkg, s.test, s.reason)
		}
	}
	t.listSlowest()
	return t.failed == 0 && len(t.badPkgs) == 0 && len(stopped) == 0
}

// listSlowest writes the run's slowest top-level tests, slowest first
// (a subtest's time is in its test's).
func (t *tally) listSlowest() {
	if len(t.times) == 0 {
		return
	}
	slices.SortStableFunc(t.times, func(a, b timed) int {
		switch {
		case a.secs > b.secs:
			return -1
		case a.secs < b.secs:
			return 1
		}
		return 0
	})
	n := min(slowest, len(t.times))
	fmt.Fprintf(t.w, "The %d slowest tests:\n", n)
	for _, s := range t.times[:n] {
		fmt.Fprintf(t.w, "  %4.1fs %s %s\n", s.secs, s.pkg, s.test)
	}
}

// skipReason is what a skipped test said: its output but go test's own
// lines (=== RUN, --- SKIP), on one line.
func skipReason(out *strings.Builder) string {
	if out == nil {
		return "(no reason given)"
	}
	var said []string
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		said = append(said, line)
	}
	if len(said) == 0 {
		return "(no reason given)"
	}
	return strings.Join(said, " / ")
}

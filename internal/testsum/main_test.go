package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goTestJSON runs the real `go test -json` on a module of its own whose
// tests pass, skip with and without a reason (a subtest too), and fail, and
// returns what it printed.
func goTestJSON(t *testing.T, failing bool) []byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	dir := t.TempDir()
	src := `package demo

import "testing"

func TestPasses(t *testing.T) {}

func TestNeedsTesseract(t *testing.T) {
	t.Log("looking for it")
	t.Skip("tesseract not on PATH — apt-get install tesseract-ocr")
}

func TestQuiet(t *testing.T) { t.SkipNow() }

func TestTable(t *testing.T) {
	t.Run("real-ollama", func(t *testing.T) { t.Skip("set CHORUS_OLLAMA_BIN") })
	t.Run("fake", func(t *testing.T) {})
}
`
	if failing {
		src += `
func TestBroken(t *testing.T) { t.Error("want 2, got 3") }
`
	}
	for name, body := range map[string]string{"go.mod": "module demo\n\ngo 1.22\n", "demo_test.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "test", "-json", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if failing != (err != nil) {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	return out
}

// TestSummarizeListsSkips: after a real go test -json run, every skipped
// test is listed at the end with its package and reason (go test's own
// lines dropped), the totals are right, and the run passes.
func TestSummarizeListsSkips(t *testing.T) {
	var out bytes.Buffer
	ok, err := summarize(bytes.NewReader(goTestJSON(t, false)), &out)
	got := out.String()
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v:\n%s", ok, err, got)
	}
	for _, want := range []string{
		"ok  \tdemo\t",
		"3 tests passed, 0 failed, 3 skipped\n",
		"Skipped, and why (README: what a full run needs):\n",
		"  demo TestNeedsTesseract: demo_test.go:8: looking for it / demo_test.go:9: tesseract not on PATH — apt-get install tesseract-ocr\n",
		"  demo TestQuiet: (no reason given)\n",
		"  demo TestTable/real-ollama: demo_test.go:15: set CHORUS_OLLAMA_BIN\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") || strings.Contains(got, "--- SKIP") || strings.Contains(got, "\nPASS\n") {
		t.Errorf("go test's own lines in a passing run's summary:\n%s", got)
	}
}

// TestSummarizeFails: a failed test's output is shown and the run fails;
// so does a package that started and gave no result (go test killed), and
// input with no events at all.
func TestSummarizeFails(t *testing.T) {
	var out bytes.Buffer
	ok, err := summarize(bytes.NewReader(goTestJSON(t, true)), &out)
	got := out.String()
	if err != nil || ok || !strings.Contains(got, "--- FAIL: TestBroken") || !strings.Contains(got, "want 2, got 3") ||
		!strings.Contains(got, "3 tests passed, 1 failed, 3 skipped; 1 package(s) failed") {
		t.Errorf("failing run: ok %v, err %v:\n%s", ok, err, got)
	}

	out.Reset()
	cut := `{"Action":"start","Package":"demo/a"}
{"Action":"run","Package":"demo/a","Test":"TestLong"}
`
	if ok, err := summarize(strings.NewReader(cut), &out); err != nil || ok || !strings.Contains(out.String(), "FAIL\tdemo/a: no result") {
		t.Errorf("cut-off run: ok %v, err %v:\n%s", ok, err, out.String())
	}
	if ok, err := summarize(strings.NewReader("go: cannot find main module\n"), &out); ok || err == nil || !strings.Contains(err.Error(), "no go test -json events") {
		t.Errorf("no events: ok %v, err %v", ok, err)
	}
}

// TestSummarizeListsTheSlowest: the run ends with its slowest top-level
// tests, slowest first, each with its package and seconds; subtests are
// counted in their test, and a package's own time is not a test's.
func TestSummarizeListsTheSlowest(t *testing.T) {
	var in strings.Builder
	for i, d := range []string{"0.5", "12.25", "3", "0.01", "40.7", "1", "2", "9", "8", "7", "6", "5"} {
		fmt.Fprintf(&in, `{"Action":"pass","Package":"demo/p","Test":"Test%02d","Elapsed":%s}`+"\n", i, d)
	}
	in.WriteString(`{"Action":"pass","Package":"demo/p","Test":"Test04/sub","Elapsed":40.5}` + "\n")
	in.WriteString(`{"Action":"fail","Package":"demo/q","Test":"TestSlowFail","Elapsed":30}` + "\n")
	in.WriteString(`{"Action":"pass","Package":"demo/q","Elapsed":99}` + "\n")
	var out bytes.Buffer
	if _, err := summarize(strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	_, slow, found := strings.Cut(got, "The 10 slowest tests:\n")
	if !found {
		t.Fatalf("no slowest tests listed:\n%s", got)
	}
	want := []string{"  40.7s demo/p Test04", "  30.0s demo/q TestSlowFail", "  12.2s demo/p Test01", "   9.0s demo/p Test07",
		"   8.0s demo/p Test08", "   7.0s demo/p Test09", "   6.0s demo/p Test10", "   5.0s demo/p Test11",
		"   3.0s demo/p Test02", "   2.0s demo/p Test06"}
	lines := strings.Split(strings.TrimRight(slow, "\n"), "\n")
	if len(lines) < len(want) {
		t.Fatalf("slowest: %q", lines)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("slowest #%d = %q, want %q", i+1, lines[i], w)
		}
	}
	if strings.Contains(slow, "sub") || strings.Contains(slow, "99") {
		t.Errorf("a subtest or a package counted as a test:\n%s", slow)
	}
}

// TestTaskfileTestUsesIt: the README's test command (go tool task test)
// runs the suite through testsum, so its skips are listed, with -race
// where testsum says the race detector can run (TestTaskTestWithOnlyGo).
func TestTaskfileTestUsesIt(t *testing.T) {
	b, err := os.ReadFile("../../Taskfile.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, task, _ := strings.Cut(string(b), "\n  test:\n")
	task, _, _ = strings.Cut(task, "\n\n")
	if !strings.Contains(task, "go test {{.RACE}} -count=1 -timeout 15m -json ./... | go run ./internal/testsum") ||
		!strings.Contains(task, "sh: go run ./internal/testsum -race-flag") {
		t.Errorf("the test task does not pipe go test -json into internal/testsum:\n%s", task)
	}
}

// TestRun: the command as the Taskfile runs it — -race-flag prints the
// flag alone (an empty line where the race detector cannot run); a
// summary without the race detector starts with the one line saying so;
// the exit status is 1 for a failed run and for input that is no run,
// whose reason goes to stderr.
func TestRun(t *testing.T) {
	t.Parallel()
	race := func(k string) (string, error) { return map[string]string{"CGO_ENABLED": "1", "CC": "gcc"}[k], nil }
	noCgo := func(k string) (string, error) { return map[string]string{"CGO_ENABLED": "0", "CC": "gcc"}[k], nil }
	look := func(string) (string, error) { return "/usr/bin/gcc", nil }
	passing := `{"Action":"start","Package":"demo"}
{"Action":"pass","Package":"demo","Test":"TestA","Elapsed":0.1}
{"Action":"output","Package":"demo","Output":"ok  \tdemo\t0.1s\n"}
{"Action":"pass","Package":"demo","Elapsed":0.1}
`
	failing := strings.Replace(passing, `"pass","Package":"demo","Test"`, `"fail","Package":"demo","Test"`, 1)
	for _, tc := range []struct {
		name           string
		args           []string
		goenv          func(string) (string, error)
		in             string
		code           int
		stdout, stderr string // the start of stdout; stderr whole
	}{
		{"flag", []string{"-race-flag"}, race, "", 0, "-race\n", ""},
		{"no flag without cgo", []string{"-race-flag"}, noCgo, "", 0, "\n", ""},
		{"a passing run", nil, race, passing, 0, "ok  \tdemo\t0.1s\n\n1 tests passed", ""},
		{"without the race detector", nil, noCgo, passing, 0, "testsum: the tests run without the race detector: cgo is off", ""},
		{"a failing run", nil, race, failing, 1, "ok  \tdemo\t0.1s\n\n0 tests passed, 1 failed", ""},
		{"no run", nil, race, "go: no Go files\n", 1, "go: no Go files\n", "testsum: no go test -json events on stdin — run go test -json ./... | go run ./internal/testsum\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(tc.in), &stdout, &stderr, tc.goenv, look)
		if code != tc.code || !strings.HasPrefix(stdout.String(), tc.stdout) || stderr.String() != tc.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q…, %q", tc.name, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
		if tc.args != nil && stdout.Len() > len(tc.stdout) {
			t.Errorf("%s: -race-flag printed more than the flag: %q", tc.name, stdout.String())
		}
	}
}

// TestSummarizeLongLine: a line past the 16 MiB a test may log is an
// error that says what was being read, not a summary that silently
// stops there.
func TestSummarizeLongLine(t *testing.T) {
	t.Parallel()
	in := `{"Action":"start","Package":"demo"}` + "\n" + strings.Repeat("x", 16<<20+1) + "\n"
	var out bytes.Buffer
	ok, err := summarize(strings.NewReader(in), &out)
	if ok || err == nil || !strings.Contains(err.Error(), "reading go test -json") {
		t.Errorf("a 16 MiB line: ok %v, err %v", ok, err)
	}
}

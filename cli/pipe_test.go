package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
)

// execCLI runs a command line the way main does — through Fang, with its
// exit status — with stdin given (nil: none).
func (e *cliEnv) exec(stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	root := newRootCmd(e.options())
	root.SetOut(&out)
	root.SetErr(&errb)
	if stdin != nil {
		root.SetIn(stdin)
	} else {
		root.SetIn(strings.NewReader("")) // as from a closed pipe: nothing read
	}
	code = execute(context.Background(), root, args)
	return out.String(), errb.String(), code
}

// lastUserPrompt is the newest planning request's last message.
func lastPlanPrompt(e *cliEnv) string {
	var last string
	for _, req := range e.ollama.ChatRequests() {
		if stageOf(&req) == "plan" {
			last = req.Messages[len(req.Messages)-1].Content
		}
	}
	return last
}

func chatOnly(answer string) func(*api.ChatRequest) fakeollama.Reply {
	return func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: answer}
	}
}

// TestRunReadsPipedStdin: `cat notes.md | chorus run "summarize"` sends the
// request and then the input; without an argument the input is the
// request; an input too long for the prompt is saved and attached.
func TestRunReadsPipedStdin(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, chatOnly("A summary."))
	stdout, stderr, code := e.exec(strings.NewReader("# Notes\nthe zebra count is 4\n"), "run", "summarize")
	if code != 0 || stdout != "A summary.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	if p := lastPlanPrompt(e); !strings.Contains(p, "Request: summarize\n") || !strings.Contains(p, "<data>\n# Notes\nthe zebra count is 4\n</data>") {
		t.Fatalf("the planner did not get the request followed by the input, quoted as data:\n%s", p)
	}

	if _, stderr, code := e.exec(strings.NewReader("what is 2+2?"), "run"); code != 0 {
		t.Fatalf("stdin alone: exit %d stderr %q", code, stderr)
	}
	if p := lastPlanPrompt(e); !strings.Contains(p, "what is 2+2?") {
		t.Fatalf("stdin alone was not the request:\n%s", p)
	}

	if _, stderr, code := e.exec(strings.NewReader(" \n"), "run"); code != 2 || !strings.Contains(stderr, "stdin was empty") {
		t.Fatalf("empty stdin and no request: exit %d stderr %q", code, stderr)
	}

	long := strings.Repeat("a long line of notes\n", 2000) // 42 KB
	_, stderr, code = e.exec(strings.NewReader(long), "run", "--out", e.out, "summarize")
	if code != 0 {
		t.Fatalf("long stdin: exit %d stderr %q", code, stderr)
	}
	saved, _ := filepath.Glob(filepath.Join(e.out, "stdin-*.txt"))
	if len(saved) != 1 {
		t.Fatalf("the long input was not saved in the output directory: %v", saved)
	}
	if b, err := os.ReadFile(saved[0]); err != nil || string(b) != long {
		t.Fatalf("the saved input differs (%v)", err)
	}
	if p := lastPlanPrompt(e); strings.Contains(p, "a long line of notes") || !strings.Contains(p, saved[0]) {
		t.Fatalf("the long input went into the prompt, or its file is not named:\n%.400s", p)
	}
	if !strings.Contains(stderr, "attached as "+saved[0]) {
		t.Fatalf("the log does not say where the input went: %q", stderr)
	}
}

// TestRunQuiet: --quiet leaves only the answer; a failure still says why.
func TestRunQuiet(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, chatOnly("Only this."))
	stdout, stderr, code := e.exec(nil, "run", "--quiet", "hi")
	if code != 0 || stdout != "Only this.\n" || stderr != "" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	e.ollama.Stop()
	_, stderr, code = e.exec(nil, "run", "-q", "hi")
	if code != 1 || !strings.Contains(stderr, "ollama serve") {
		t.Fatalf("a failure under --quiet: exit %d stderr %q", code, stderr)
	}
}

// TestRunRendersMarkdownOnATerminal: on a terminal the answer is rendered
// (no Markdown markup, references as →#N); into a pipe it is the raw text.
func TestRunRendersMarkdownOnATerminal(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, chatOnly("## Result\n\nThe **caption** of <resource>-0 is ready."))
	cfg, err := (&globalFlags{defaults: testOptions().Defaults, env: e.env}).load()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := runTurn(context.Background(), cfg, &runFlags{terminal: true}, "hi", &out, &errb); err != nil {
		t.Fatalf("%v (stderr %q)", err, errb.String())
	}
	got := out.String()
	if strings.Contains(got, "**") || strings.Contains(got, "<resource>") || !strings.Contains(got, "caption") || !strings.Contains(got, "→#0") {
		t.Fatalf("the answer was not rendered for a terminal: %q", got)
	}
	stdout, _, _ := e.exec(nil, "run", "hi")
	if !strings.Contains(stdout, "The **caption** of <resource>-0 is ready.") {
		t.Fatalf("piped output is not the raw Markdown: %q", stdout)
	}
}

// TestRunEveryTaskFailedExitsOne: an answer that can only explain that
// nothing ran is printed, but the exit status says the work failed.
func TestRunEveryTaskFailedExitsOne(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(20, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + img + `"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[]}`}
		}
		return fakeollama.Reply{Content: "Sorry, no captioning model answered."}
	})
	// No model is served at the fake: every attempt gets Hugging Face's 404.
	stdout, stderr, code := e.exec(nil, "run", "--out", e.out, "describe "+img)
	if code != 1 || !strings.Contains(stdout, "Sorry, no captioning model answered.") || !strings.Contains(stderr, "every task of the plan failed") {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// TestExitCodesOfBadUsage: README's promise — 2 for bad usage or
// configuration — holds for unknown commands and a bad ui.keys section,
// which `chorus config` reports too.
func TestExitCodesOfBadUsage(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	for _, args := range [][]string{{"stats"}, {"models", "frobnicate"}, {"run", "--no-such-flag", "hi"}} {
		if _, stderr, code := e.exec(nil, args...); code != 2 || !strings.HasPrefix(stderr, "chorus: ") {
			t.Errorf("chorus %v: exit %d stderr %q, want 2", args, code, stderr)
		}
	}
	dir := e.env.ConfigDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("ui:\n  keys:\n    copy-all: [ctrl+o]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"config"}, {"run", "hi"}} {
		if _, stderr, code := e.exec(nil, args...); code != 2 || !strings.Contains(stderr, "ui.keys.copy-all: unknown action") {
			t.Errorf("chorus %v with a bad ui.keys: exit %d stderr %q, want 2 naming the key", args, code, stderr)
		}
	}
}

// TestConventions: --version, shell completions and the man page.
func TestConventions(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	if stdout, _, code := e.exec(nil, "--version"); code != 0 || !strings.HasPrefix(stdout, "chorus version "+chorusVersion("")) {
		t.Fatalf("--version: exit %d %q", code, stdout)
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if stdout, stderr, code := e.exec(nil, "completion", sh); code != 0 || !strings.Contains(stdout, "chorus") || len(stdout) < 500 {
			t.Fatalf("completion %s: exit %d stderr %q stdout %.200q", sh, code, stderr, stdout)
		}
	}
	// chorus man writes the page to the command's stdout.
	page, stderr, code := e.exec(nil, "man")
	if code != 0 || !strings.Contains(page, ".TH CHORUS 1") || !strings.Contains(page, "continue") {
		t.Fatalf("man: exit %d stderr %q page %.300q", code, stderr, page)
	}
}

// TestRunSaysAConstraintFailureOnce: a task no model qualifies for is
// explained once in the log, short; constraints that leave no model for
// any task are warned about once, before the turn.
func TestRunSaysAConstraintFailureOnce(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(20, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + img + `"}}]}`}
		}
		return fakeollama.Reply{Content: "No model may caption it under that licence."}
	})
	e.serveSkill("image-to-text")
	_, stderr, code := e.exec(nil, "run", "--out", e.out, "--constrain", "license=wtfpl", "describe "+img)
	if code != 1 {
		t.Fatalf("exit %d (every task failed), stderr %q", code, stderr)
	}
	if n := strings.Count(stderr, "no model satisfies the constraints"); n != 1 {
		t.Errorf("the reason appears %d times:\n%s", n, stderr)
	}
	if n := strings.Count(stderr, "no model in the catalog can meet license=wtfpl"); n != 1 {
		t.Errorf("the warning appears %d times:\n%s", n, stderr)
	}
	for _, l := range strings.Split(stderr, "\n") {
		if len(l) > 400 {
			t.Errorf("a log line of %d characters: %.200q…", len(l), l)
		}
	}
}

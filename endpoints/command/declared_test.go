package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

type echoed struct {
	Args  []string `json:"args"`
	Stdin string   `json:"stdin"`
}

func newDeclared(t *testing.T, opts command.Options, progs ...skills.Program) *command.Endpoint {
	t.Helper()
	opts.Programs = progs
	opts.Catalog, _ = catalog()
	ep := command.New(opts)
	if err := ep.Err(); err != nil {
		t.Fatalf("declarations refused: %v", err)
	}
	return ep
}

// TestDeclaredValuesStayOneArgument: whatever a plan writes — spaces,
// quotes, ";", "$()", backticks, a leading "-" — reaches the program as
// exactly one argument (or its stdin, or a file holding it) and runs
// nothing: there is no shell.
func TestDeclaredValuesStayOneArgument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	ep := newDeclared(t, command.Options{},
		helperProgram(t, "args", "summarization", "argv", "{text}"),
		func() skills.Program {
			p := helperProgram(t, "file", "summarization", "cat")
			p.Args = slices.Insert(p.Args, 1, "{text_file}") // before "--": a path is never an option
			p.Args = append(p.Args, "{text_file}")
			return p
		}(),
		func() skills.Program {
			p := helperProgram(t, "stdin", "summarization", "argv")
			p.Stdin = "{text}"
			return p
		}())
	values := []string{
		"two words and more",
		`"double" and 'single' quotes`,
		"a; touch " + pwned,
		"$(touch " + pwned + ")",
		"`touch " + pwned + "`",
		"a | tee " + pwned + " && b > " + pwned,
		"-5 °C outside",
		"--help",
		"*",
		"line one\nline two",
	}
	for _, v := range values {
		res, err := ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "args", Args: map[string]string{"text": v}})
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		var got echoed
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil {
			t.Fatalf("%q: %v in %q", v, err, res.Text)
		}
		if len(got.Args) != 1 || got.Args[0] != v {
			t.Errorf("%q reached the program as %q", v, got.Args)
		}
		res, err = ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "stdin", Args: map[string]string{"text": v}})
		if err != nil {
			t.Fatalf("stdin %q: %v", v, err)
		}
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil || len(got.Args) != 0 || got.Stdin != v {
			t.Errorf("stdin %q reached the program as args %q, stdin %q (%v)", v, got.Args, got.Stdin, err)
		}
		res, err = ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "file", Args: map[string]string{"text": v}})
		if err != nil {
			t.Fatalf("{text_file} %q: %v", v, err)
		}
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil || got.Stdin != v {
			t.Errorf("{text_file} %q: the file held %q (%v)", v, got.Stdin, err)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("a value ran a command")
	}
}

// TestDeclaredFiles: a file reaches the program as the absolute path the
// trust rule judged; one outside the turn's grant is refused before any
// program starts; an input in another format is converted by ffmpeg
// first and the program gets the converted file.
func TestDeclaredFiles(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var started []string
	ep := newDeclared(t, command.Options{Started: func(p string, _ int) { mu.Lock(); started = append(started, p); mu.Unlock() }},
		helperProgram(t, "hear", "automatic-speech-recognition", "argv", "{audio}"))
	dir := t.TempDir()
	audio := filepath.Join(dir, "-talk.wav") // a name that looks like an option
	if err := os.WriteFile(audio, []byte("RIFF…"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.wav")
	if err := os.Symlink(audio, link); err != nil {
		t.Fatal(err)
	}
	res, err := ep.Infer(context.Background(), endpointstest.Request(t, "automatic-speech-recognition", "hear", map[string]string{"audio": link}))
	if err != nil {
		t.Fatal(err)
	}
	var got echoed
	_ = json.Unmarshal([]byte(res.Text), &got)
	want, _ := filepath.EvalSymlinks(audio)
	if len(got.Args) != 1 || got.Args[0] != want || !filepath.IsAbs(got.Args[0]) {
		t.Errorf("the program got %q, want the judged path %q", got.Args, want)
	}

	mu.Lock()
	started = nil
	mu.Unlock()
	for _, p := range []string{"/etc/passwd", "~/.ssh/id_rsa", "../../.ssh/id_rsa", audio} {
		// Named in the plan, never handed over as a checked file.
		_, err := ep.Infer(context.Background(), endpoints.Request{Task: "automatic-speech-recognition", Model: "hear", Args: map[string]string{"audio": p}})
		if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want a refusal naming it", p, err)
		}
	}
	mu.Lock()
	if len(started) != 0 {
		t.Errorf("processes started for refused files: %v", started)
	}
	mu.Unlock()
}

// TestDeclaredInputConversion: inputs: {audio: wav16k} has ffmpeg make
// a 16 kHz mono WAV of whatever audio the plan gives, in the scratch
// directory, and the program reads that.
func TestDeclaredInputConversion(t *testing.T) {
	t.Parallel()
	testkit.NeedProgram(t, "ffmpeg", "ffmpeg")
	src := filepath.Join(t.TempDir(), "tone.flac")
	gen := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=44100", "-ac", "2", src)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("make test audio: %v\n%s", err, out)
	}
	p := helperProgram(t, "hear16k", "automatic-speech-recognition", "wavinfo", "{audio}")
	p.Inputs = map[string]string{"audio": "wav16k"}
	var labels []string
	ep := newDeclared(t, command.Options{Started: func(l string, _ int) { labels = append(labels, l) }}, p)
	res, err := ep.Infer(context.Background(), endpointstest.Request(t, "automatic-speech-recognition", "hear16k", map[string]string{"audio": src}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != ".wav 16000 Hz 1 ch" {
		t.Errorf("the program read %q, want a 16 kHz mono WAV", res.Text)
	}
	if !slices.Equal(labels, []string{"ffmpeg", "hear16k"}) {
		t.Errorf("processes %v, want ffmpeg then the program", labels)
	}
	// A file ffmpeg cannot read is the input's fault, said as such.
	bad := filepath.Join(t.TempDir(), "noise.wav")
	_ = os.WriteFile(bad, []byte("not audio at all"), 0o600)
	_, err = ep.Infer(context.Background(), endpointstest.Request(t, "automatic-speech-recognition", "hear16k", map[string]string{"audio": bad}))
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), "cannot convert audio") || !strings.Contains(err.Error(), "16 kHz mono WAV") {
		t.Errorf("unreadable audio: %v", err)
	}
}

// TestDeclaredTimeoutKillsTheGroup: a program that never ends is killed
// at its timeout, with what it started, and the task is told why.
// The timeout leaves a race-built helper time to start its child on a
// loaded machine (300ms did not, once).
func TestDeclaredTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := helperProgram(t, "stuck", "summarization", "hang", dir, "{text}")
	p.Timeout = "2s"
	ep := newDeclared(t, command.Options{}, p)
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "stuck", Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "stuck did not finish within 2s and was stopped") {
		t.Fatalf("err = %v", err)
	}
	b, rerr := os.ReadFile(filepath.Join(dir, "pids"))
	if rerr != nil {
		t.Fatalf("the program did not start its child: %v", rerr)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if !waitGone(pid) {
			t.Errorf("process %d outlived the timeout", pid)
		}
	}
}

// TestDeclaredOutputBounded: a program that floods stdout is stopped at
// the output limit, not read into memory to the end.
func TestDeclaredOutputBounded(t *testing.T) {
	t.Parallel()
	var pid int
	ep := newDeclared(t, command.Options{MaxOutputBytes: 1 << 20, Started: func(_ string, p int) { pid = p }},
		helperProgram(t, "flood", "summarization", "flood", "{text}"))
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "flood", Args: map[string]string{"text": "x"}})
	if err == nil || !strings.Contains(err.Error(), "output too large (more than 1 MB)") {
		t.Fatalf("err = %v", err)
	}
	if !waitGone(pid) {
		t.Errorf("the flooding program (%d) still runs", pid)
	}
}

// TestDeclaredConcurrencyLimit: no more runs of a program go at once than
// its concurrency (default 1); the others wait, saying so, and all run.
func TestDeclaredConcurrencyLimit(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 2} {
		dir := t.TempDir()
		p := helperProgram(t, "slow", "summarization", "slots", dir, "{text}")
		p.Concurrency = limit
		ep := newDeclared(t, command.Options{}, p)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var seen []int
		waited := 0
		for range 5 {
			wg.Go(func() {
				res, err := ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "slow", Args: map[string]string{"text": "x"},
					Progress: func(pr endpoints.Progress) {
						if strings.Contains(pr.Message, "waiting for slow") {
							mu.Lock()
							waited++
							mu.Unlock()
						}
					}})
				if err != nil {
					t.Error(err)
					return
				}
				n, _ := strconv.Atoi(res.Text)
				mu.Lock()
				seen = append(seen, n)
				mu.Unlock()
			})
		}
		wg.Wait()
		want := max(limit, 1)
		if len(seen) != 5 || slices.Max(seen) > want {
			t.Errorf("concurrency %d: runs saw %v at once, want at most %d each, all five run", limit, seen, want)
		}
		if waited == 0 {
			t.Errorf("concurrency %d: no run said it was waiting", limit)
		}
	}
}

// TestDeclaredFailureSaysStderrLastLine: a non-zero exit fails the task
// with the last line of the program's error output, cleaned of terminal
// controls.
func TestDeclaredFailureSaysStderrLastLine(t *testing.T) {
	t.Parallel()
	ep := newDeclared(t, command.Options{}, helperProgram(t, "broken", "summarization", "fail", "{text}"))
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "broken", Args: map[string]string{"text": "x"}})
	if err == nil || !strings.HasSuffix(err.Error(), ": disk on fire") || !strings.Contains(err.Error(), "exit status 3") ||
		strings.Contains(err.Error(), "\x1b") || !endpoints.Retryable(err) {
		t.Fatalf("err = %q", err)
	}
}

// TestDeclaredEnvironment: the program gets PATH, HOME, the user and the
// locale, its declared env with ${VAR} read from Chorus's — nothing else
// of Chorus's environment, and no variable that came out empty.
func TestDeclaredEnvironment(t *testing.T) {
	t.Parallel()
	p := helperProgram(t, "env", "summarization", "env", "{text}")
	p.Env["MODEL_DIR"] = "${MY_MODELS}"
	p.Env["UNSET"] = "${NOT_SET_ANYWHERE}"
	getenv := func(k string) string { return map[string]string{"MY_MODELS": "/srv/models"}[k] }
	ep := newDeclared(t, command.Options{Getenv: getenv, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "LC_ALL=C.UTF-8", "HF_TOKEN=hf_secret", "AWS_SECRET_ACCESS_KEY=x"}}, p)
	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "env", Args: map[string]string{"text": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"HOME=/home/u", "LC_ALL=C.UTF-8", "MODEL_DIR=/srv/models", helperEnv + "=env"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s missing from %q", want, env)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "HF_TOKEN=") || strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "UNSET=") {
			t.Errorf("the program got %s", kv)
		}
	}
}

// TestDeclaredResultPlaces: the result is read from {out}, or from a file
// the program names — only inside its outputs folder.
func TestDeclaredResultPlaces(t *testing.T) {
	t.Parallel()
	out := helperProgram(t, "writer", "summarization", "write", "{out}", "short summary")
	out.Output = "{out}"
	named := helperProgram(t, "namer", "summarization", "named", "{outdir}", "named summary")
	named.Output = "named"
	secret := filepath.Join(t.TempDir(), "secret.txt")
	_ = os.WriteFile(secret, []byte("PRIVATE"), 0o600)
	liar := helperProgram(t, "liar", "summarization", "print", secret, "{outdir}")
	liar.Output = "named"
	ep := newDeclared(t, command.Options{}, out, named, liar)
	req := func(model string) endpoints.Request {
		return endpoints.Request{Task: "summarization", Model: model, Args: map[string]string{"text": "a long text"}}
	}
	if res, err := ep.Infer(context.Background(), req("writer")); err != nil || res.Text != "short summary" {
		t.Errorf("{out}: %q, %v", res.Text, err)
	}
	if res, err := ep.Infer(context.Background(), req("namer")); err != nil || res.Text != "named summary" {
		t.Errorf("named: %q, %v", res.Text, err)
	}
	res, err := ep.Infer(context.Background(), req("liar"))
	if !errors.Is(err, scope.ErrDenied) || strings.Contains(res.Text+err.Error(), "PRIVATE") {
		t.Errorf("a file named outside the outputs folder: %q, %v", res.Text, err)
	}
}

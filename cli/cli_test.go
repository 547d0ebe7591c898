package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
	"github.com/chorusai/chorus/skills"
)

// cliEnv points a `chorus` command at fake servers through the environment,
// as a user would configure it, with no user config file. env is the
// environment the commands read (Options.Environ): the test's own, so
// tests share no process state.
type cliEnv struct {
	t      *testing.T
	ollama *fakeollama.Server
	hf     *fakehf.Server
	out    string
	env    config.Env
}

func newCLIEnv(t *testing.T, planner func(*api.ChatRequest) fakeollama.Reply) *cliEnv {
	t.Helper()
	e := &cliEnv{t: t, ollama: fakeollama.New(t), hf: fakehf.New(t), out: t.TempDir(), env: homeEnv(t)}
	e.ollama.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	e.ollama.OnChat(planner)
	e.hf.RequireToken("hf_cli")
	maps.Copy(e.env, config.Env{
		"OLLAMA_HOST":                 e.ollama.URL,
		"CHORUS_CONTROLLER_MODEL":     "ctl",
		"CHORUS_HUGGINGFACE_BASE_URL": e.hf.URL,
		// The fake is the Hub too: which providers serve a model is asked there.
		"CHORUS_HUGGINGFACE_HUB_URL": e.hf.Root,
		"HF_TOKEN":                   "hf_cli",
		"CHORUS_OLLAMA_EXPERTS":      "false",
		"CHORUS_COMMAND_ENABLED":     "false",
	})
	onControllerKind(t, e.env, e.ollama, "ctl")
	return e
}

// homeEnv is an environment of the test's own: the XDG directories,
// HF_HOME and HOME in temporary folders, nothing of the developer's.
func homeEnv(t *testing.T) config.Env {
	_, env := testkit.Isolate(t)
	return env
}

// run runs `chorus args…` in this process on e's environment.
func (e *cliEnv) run(args ...string) (stdout, stderr string, code int) {
	return runCLIWith(e.options(), args...)
}

// options are the binary's options on e's environment.
func (e *cliEnv) options() Options {
	opts := testOptions()
	opts.Environ = e.environ()
	return opts
}

// environ is e.env as os.Environ lists it.
func (e *cliEnv) environ() []string {
	var list []string
	for k, v := range e.env {
		list = append(list, k+"="+v)
	}
	return list
}

// childEnv is the environment of the built binary run on e's: the
// process's, with e's over it.
func (e *cliEnv) childEnv() []string { return append(os.Environ(), e.environ()...) }

// serveSkill registers every Hugging Face model of a catalog skill at the
// fake, and returns their ids.
func (e *cliEnv) serveSkill(task string) (ids []string) {
	cat, err := skills.Embedded()
	if err != nil {
		e.t.Fatal(err)
	}
	s, ok := cat.Skill(task)
	if !ok {
		e.t.Fatalf("no skill %s", task)
	}
	for _, m := range s.Models {
		if m.ServedBy(skills.EndpointHuggingFace) {
			e.hf.Model(m.ID, task)
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// configYAML is the module's config.yaml, the defaults main embeds.
var configYAML = sync.OnceValues(func() ([]byte, error) { return os.ReadFile("../config.yaml") })

// testOptions are the binary's options for a command a test runs: the
// documented defaults, no stamped version.
func testOptions() Options {
	b, err := configYAML()
	if err != nil {
		panic("config.yaml: " + err.Error()) // the checkout is broken
	}
	return Options{Defaults: b}
}

// bareEnv is an environment of the test's own with nothing configured.
func bareEnv(t *testing.T) *cliEnv { return &cliEnv{t: t, env: homeEnv(t)} }

// runCLIWith is runCLI with the binary's options given.
func runCLIWith(opts Options, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	cmd := newRootCmd(opts)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	err := cmd.ExecuteContext(context.Background())
	if err != nil {
		code = exitCode(err)
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), code
}

func stageOf(req *api.ChatRequest) string {
	switch pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) {
	case string(pipeline.StagePlanning):
		return "plan"
	case string(pipeline.StageSelection):
		return "select"
	}
	return "other"
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line is not one JSON object: %q (%v)", sc.Text(), err)
		}
		if _, ok := m["type"].(string); !ok {
			t.Fatalf("event without a type: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

func TestRunJSONFullTurn(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(50, 40), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + img + `"}},{"task":"text-to-speech","id":2,"dep":[1],"args":{"text":"<resource>-1"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"id":"not-a-model","reason":"x"}`}
		}
		return fakeollama.Reply{Content: "It is a cat; I read the caption aloud."}
	})
	e.serveSkill("image-to-text")
	e.serveSkill("text-to-speech")
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "describe "+img+" and read it aloud")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	evs := jsonLines(t, stdout)
	var types []string
	var answer string
	var files []string
	for _, ev := range evs {
		types = append(types, ev["type"].(string))
		switch ev["type"] {
		case "answer":
			answer = ev["text"].(string)
		case "task_end":
			if ev["status"] != "ok" {
				t.Fatalf("task failed: %v", ev)
			}
			for _, f := range ev["files"].([]any) {
				files = append(files, f.(string))
			}
		}
	}
	for _, want := range []string{"plan", "model", "task_start", "task_end", "token", "answer", "report"} {
		if !strings.Contains(strings.Join(types, " "), want) {
			t.Fatalf("no %s event in %v", want, types)
		}
	}
	if len(files) != 1 || !strings.HasPrefix(files[0], e.out) || !strings.Contains(answer, files[0]) {
		t.Fatalf("files %v, answer %q", files, answer)
	}
	if _, err := os.Stat(files[0]); err != nil {
		t.Fatal(err)
	}
}

func TestRunPlainPrintsLogAndAnswer(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: "Hello, human."}
	})
	_ = e
	stdout, stderr, code := e.run("run", "hi")
	// The answer alone on stdout; the log on stderr.
	if code != 0 || !strings.Contains(stderr, "plan: no expert tasks") || stdout != "Hello, human.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// TestRunPlainStripsTerminalControls: the plain log never passes escape
// sequences from the model (or a file name, or a server) to the terminal,
// where they could clear the screen or set the clipboard.
func TestRunPlainStripsTerminalControls(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": [{"task": "teleport\u001b[2J", "id": 1, "dep": [], "args": {}}]}`}
		}
		return fakeollama.Reply{Content: "safe \x1b]52;c;aGVsbG8=\x07text\x1b[2J\r\nnext\tline \u009b31m"}
	})
	stdout, stderr, code := e.run("run", "hi")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if strings.ContainsAny(stdout+stderr, "\x1b\x07\r\u009b") {
		t.Fatalf("control characters reached the terminal: %q %q", stdout, stderr)
	}
	if !strings.Contains(stdout, "safe text\nnext\tline \n") || !strings.Contains(stderr, "dropped task 1 (teleport)") ||
		strings.Contains(stdout, "]52;") || strings.Contains(stdout, "31m") {
		t.Fatalf("the visible text was not kept: %q", stdout)
	}
}

func TestRunFailuresExitNonZeroWithOneLine(t *testing.T) {
	t.Parallel()
	t.Run("ollama down", func(t *testing.T) {
		e := newCLIEnv(t, nil)
		e.ollama.Stop()
		_, stderr, code := e.run("run", "--json", "hi")
		if code != 1 || !strings.Contains(stderr, "ollama serve") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("model not pulled", func(t *testing.T) {
		e := newCLIEnv(t, nil)
		_, stderr, code := e.run("run", "--model", "llama9:70b", "hi")
		if code != 1 || !strings.Contains(stderr, "ollama pull llama9:70b") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		e := newCLIEnv(t, nil)
		e.env["CHORUS_INFERENCE_MODE"] = "sometimes"
		_, stderr, code := e.run("run", "hi")
		if code != 2 || !strings.Contains(stderr, "inference_mode") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("a turn that fails is saved, and --json keeps stderr one line", func(t *testing.T) {
		e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
			if stageOf(req) == "plan" {
				return fakeollama.Reply{Content: `{"tasks": []}`}
			}
			return fakeollama.Reply{Status: 500, Error: "the runner crashed"}
		})
		_, stderr, code := e.run("run", "--json", "hi")
		latest, err := sessions.Store{Dir: e.env.SessionsDir()}.Latest()
		if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || strings.Contains(stderr, "session:") ||
			err != nil || len(latest.Turns) != 1 || latest.Turns[0].Error == "" {
			t.Fatalf("exit %d stderr %q; saved %+v (%v)", code, stderr, latest, err)
		}
		_, stderr, _ = e.run("run", "hi")
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-2], "session: ") ||
			!strings.Contains(lines[len(lines)-1], "the runner crashed") {
			t.Fatalf("a plain failed run: the session, then the cause last: %q", stderr)
		}
	})
	t.Run("unknown controller kind", func(t *testing.T) {
		e := newCLIEnv(t, nil)
		e.env["CHORUS_CONTROLLER_KIND"] = "LMStudio"
		_, stderr, code := e.run("run", "hi")
		if code != 2 || !strings.Contains(stderr, `config: controller.kind: unknown controller kind "lmstudio" — use one of: ollama`) {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("missing attachment", func(t *testing.T) {
		e := newCLIEnv(t, nil)
		_, stderr, code := e.run("run", "--attach", "/no/such/file.png", "what is this?")
		if code != 2 || !strings.Contains(stderr, "/no/such/file.png does not exist") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("attachment that is a pipe", func(t *testing.T) {
		e := newCLIEnv(t, nil)
		fifo := filepath.Join(t.TempDir(), "in.png")
		if err := testkit.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
		_, stderr, code := e.run("run", "--attach", fifo, "what is this?")
		if code != 2 || !strings.Contains(stderr, "not a regular file") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
	t.Run("empty request", func(t *testing.T) {
		e := newCLIEnv(t, nil)
		if _, _, code := e.run("run", "  "); code != 2 {
			t.Fatalf("exit %d", code)
		}
	})
}

func TestRunPlanOnly(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "x.png")
	if err := os.WriteFile(img, fakehf.PNG(8, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `[{"task":"image-cls","id":1,"dep":[-1],"args":{"image":"` + img + `"}}]`}
	})
	stdout, stderr, code := e.run("run", "--json", "--plan-only", "classify "+img)
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	evs := jsonLines(t, stdout)
	var plan map[string]any
	for _, ev := range evs {
		if ev["type"] == "plan" {
			plan = ev
		}
		if ev["type"] == "task_start" {
			t.Fatal("--plan-only ran a task")
		}
	}
	tasks := plan["tasks"].([]any)
	if len(tasks) != 1 || tasks[0].(map[string]any)["task"] != "image-classification" {
		t.Fatalf("plan = %v", plan)
	}
	if n := len(e.ollama.ChatRequests()); n != 1 {
		t.Fatalf("controller calls = %d, want only planning", n)
	}
}

// TestRunInterruptedBeforeTheTurnExits130: Ctrl+C while the controller is
// being checked is an interruption (exit 130), not "Ollama is not
// reachable" (exit 1).
func TestRunInterruptedBeforeTheTurnExits130(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	cfg, err := (&globalFlags{defaults: testOptions().Defaults, env: e.env}).load()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	err = runTurn(ctx, cfg, &runFlags{json: true}, "hi", &out, &errb)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 130 || strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("err = %v, want exit 130 for an interruption", err)
	}
}

// TestErrorLineIsTerminalSafe: the one-line cause on stderr keeps its
// exit status and drops escape sequences a server or a flag put in it,
// whole: no "]0;pwned" is left behind.
func TestErrorLineIsTerminalSafe(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	code := reportError(&b, &exitError{code: 2, err: errors.New("model \x1b]0;pwned\x07x is not pulled")})
	if code != 2 || b.String() != "chorus: model x is not pulled\n" {
		t.Fatalf("exit %d, stderr %q", code, b.String())
	}
}

// TestRunContinuesASession: `chorus run --continue` and `--session ID`
// give the planner the saved turns (with their files) as history and save
// the new turn into the session, as the TUI does; --continue with no
// session starts one, --session of a missing id names the sessions folder.
func TestRunContinuesASession(t *testing.T) {
	t.Parallel()
	answers := 0
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		answers++
		return fakeollama.Reply{Content: fmt.Sprintf("Answer number %d.", answers)}
	})

	st := sessions.Store{Dir: e.env.SessionsDir()}
	_, stderr, code := e.run("run", "--continue", "hi")
	first, _ := st.Latest()
	if code != 0 || !strings.Contains(stderr, "no saved session yet in "+e.env.SessionsDir()) || first == nil ||
		len(first.Turns) != 1 || !strings.HasSuffix(stderr, "session: "+first.ID+"\n") {
		t.Fatalf("--continue with no session: exit %d stderr %q, saved %+v", code, stderr, first)
	}
	// The hint is one a shell user can follow: chorus sessions.
	if _, stderr, code := e.run("run", "--session", "nope", "hi"); code != 2 || !strings.Contains(stderr, `no saved session's id or title starts with "nope"`) ||
		!strings.Contains(stderr, e.env.SessionsDir()) || !strings.Contains(stderr, "chorus sessions lists them") {
		t.Fatalf("--session of a missing id: exit %d stderr %q", code, stderr)
	}
	if _, _, code := e.run("run", "--continue", "--session", "x", "hi"); code != 2 {
		t.Fatalf("--continue with --session: exit %d", code)
	}

	// A session the TUI saved: one turn that made a picture.
	pic := filepath.Join(e.out, "cat.png")
	if err := os.WriteFile(pic, fakehf.PNG(8, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	s := st.New("")
	s.Model = "ctl"
	s.AddTurn(sessions.Record{Request: "draw a cat", Answer: "Here is a cat.", Planned: true, Resources: []string{pic}})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := e.run("run", "--continue", "make it bigger")
	if code != 0 || !strings.Contains(stderr, "continuing session draw a cat ("+s.ID+") after 1 turn(s)") ||
		!strings.Contains(stderr, "session: "+s.ID+"\n") || !strings.Contains(stdout, "Answer number 2.") {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	// The chat log follows the head as messages, before the request.
	planPrompt := func() string {
		var all string
		for _, req := range e.ollama.ChatRequests() {
			if stageOf(&req) == "plan" {
				all = ""
				for _, m := range req.Messages[1:] {
					all += m.Role + ": " + m.Content + "\n"
				}
			}
		}
		return all
	}
	if p := planPrompt(); !strings.Contains(p, "user: draw a cat\n") || !strings.Contains(p, "assistant: Here is a cat.\n[files: "+pic+"]") {
		t.Fatalf("the planner did not get the session as history:\n%s", p)
	}
	back, err := st.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Turns) != 2 || back.Turns[1].Request != "make it bigger" || back.Turns[1].Answer != "Answer number 2." ||
		!back.Turns[1].Planned || back.Turns[1].Report == nil || back.Model != "ctl" {
		t.Fatalf("the turn was not saved into the session: %+v", back)
	}

	// --session ID, with --json: stdout stays one event per line.
	stdout, stderr, code = e.run("run", "--json", "--session", s.ID, "and smaller")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	jsonLines(t, stdout)
	if p := planPrompt(); !strings.Contains(p, "user: make it bigger") || !strings.Contains(p, "assistant: Answer number 2.") {
		t.Fatalf("the second continuation lacks the first one's turn:\n%s", p)
	}
	if back, err = st.Load(s.ID); err != nil || len(back.Turns) != 3 || back.Turns[2].Answer != "Answer number 3." {
		t.Fatalf("after --session: %+v, %v", back, err)
	}
	if list, err := st.List(); err != nil || len(list) != 2 {
		t.Fatalf("continuing made another session: %+v, %v", list, err)
	}

	// --no-save: the turn runs and no session changes or appears.
	_, stderr, code = e.run("run", "--no-save", "--continue", "just this once")
	if back, _ := st.Load(s.ID); code != 0 || strings.Contains(stderr, "session: ") || len(back.Turns) != 3 {
		t.Fatalf("--no-save: exit %d stderr %q, %d turns", code, stderr, len(back.Turns))
	}
	if list, _ := st.List(); len(list) != 2 {
		t.Fatalf("--no-save made a session: %+v", list)
	}
}

// TestRunWritesTheLogFile: a run appends to $XDG_STATE_HOME/chorus/chorus.log
// (private to the user) records of its start, stages, controller calls and
// outcome at Info; debug records only with --debug; never the request.
func TestRunWritesTheLogFile(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: "Hello."}
	})
	path := filepath.Join(e.env.StateDir(), "chorus.log")
	if _, stderr, code := e.run("run", "what about my secret plans"); code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{
		`level=INFO msg="chorus started" pid=`, `command="chorus run"`, `mode=hybrid controller=ctl`,
		`level=INFO msg="controller check"`, `level=INFO msg="turn started"`, `level=INFO msg=stage pid=`,
		`level=INFO msg="controller chat"`, `done_reason=stop`, `level=INFO msg=answer`, `level=INFO msg="turn finished"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "level=DEBUG") || strings.Contains(log, "secret") || strings.Contains(log, "hf_cli") {
		t.Errorf("debug records, the request or the token at the default level:\n%s", log)
	}
	for _, p := range []string{path, filepath.Dir(path)} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[st.IsDir()]; st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, st.Mode().Perm(), want)
		}
	}

	if _, stderr, code := e.run("run", "--debug", "hi again"); code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	again := string(data)
	if !strings.HasPrefix(again, log) || !strings.Contains(again[len(log):], `level=DEBUG msg="turn request"`) ||
		!strings.Contains(again[len(log):], "debug=true") {
		t.Fatalf("the second run did not append debug records:\n%s", again[len(log):])
	}

	// A state directory that cannot be made costs the log, not the run.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.env["XDG_STATE_HOME"] = blocker
	if stdout, stderr, code := e.run("run", "hi"); code != 0 || !strings.Contains(stdout, "Hello.") {
		t.Fatalf("an unwritable log broke the run: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// TestRunNeverSendsFilesTheUserDidNotGive: a plan that names ~/.ssh/id_rsa,
// the Hugging Face token file and a private note — as media and as text —
// makes nothing of them leave the process: not to Hugging Face, not to the
// controller, not to stdout, stderr or the saved session.
func TestRunNeverSendsFilesTheUserDidNotGive(t *testing.T) {
	home := t.TempDir()
	secret := "-----BEGIN OPENSSH PRIVATE KEY----- c2VjcmV0LWtleQ"
	for _, f := range []string{".ssh/id_rsa", ".ssh/notes.txt", ".cache/huggingface/token"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(secret), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": [
				{"task": "image-to-text", "id": 1, "dep": [], "args": {"image": "~/.ssh/id_rsa"}},
				{"task": "automatic-speech-recognition", "id": 2, "dep": [], "args": {"audio": "` + home + `/.cache/huggingface/token"}},
				{"task": "summarization", "id": 3, "dep": [], "args": {"text": "~/.ssh/notes.txt"}},
				{"task": "text-to-speech", "id": 4, "dep": [], "args": {"text": "../../../../../../../../` + home + `/.ssh/id_rsa"}}]}`}
		}
		return fakeollama.Reply{Content: "Done."}
	})
	e.env["HOME"] = home
	e.serveSkill("image-to-text")
	e.serveSkill("automatic-speech-recognition")
	e.serveSkill("text-to-speech")
	st := sessions.Store{Dir: e.env.SessionsDir()}
	s := st.New("")
	s.Model = "ctl"
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.run("run", "--json", "--session", s.ID, "describe my key and read my notes")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	where := leaks(e, secret, stdout, stderr)
	files, _ := filepath.Glob(filepath.Join(e.env.SessionsDir(), "*.json"))
	saved := false
	for _, f := range files {
		b, _ := os.ReadFile(f)
		saved = saved || strings.Contains(string(b), "describe my key")
		if strings.Contains(string(b), secret) {
			where = append(where, "the session file")
		}
	}
	if !saved {
		t.Fatalf("the turn was not saved to the session (files %v)", files)
	}
	if len(where) > 0 {
		t.Fatalf("the secret reached %v", where)
	}
	if !strings.Contains(stdout, "is not a file you gave this turn") || !strings.Contains(stdout, "--attach") {
		t.Fatalf("the refusals are not explained:\n%s", stdout)
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// These tests drive the real binary the way people and scripts do: a fresh
// home, several Chorus processes on one session, the TUI in tmux beside
// `chorus run --continue`. Every turn must end up in the session, in order.

// e2eWait bounds waits that end quickly in a working build.
const e2eWait = 60 * time.Second

// home is a fresh HOME with nothing of Chorus in it, a fake Ollama, and
// the binary.
type home struct {
	t      *testing.T
	bin    string
	dir    string
	ollama *fakeollama.Server
	env    []string
}

// newHome builds the binary and makes a fresh home whose controller is a
// fake Ollama that plans with plan and answers "Answer to <request>.".
func newHome(t *testing.T, plan func(request string, req *api.ChatRequest) string) *home {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	h := &home{t: t, dir: t.TempDir()}
	h.bin = chorusBinary(t)
	h.ollama = fakeollama.New(t)
	h.ollama.AddModel(fakeollama.Model{Name: "qwen3:8b", ParameterSize: "8.2B"})
	h.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		request := requestOf(last)
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) {
			if plan != nil {
				return fakeollama.Reply{Content: plan(request, req)}
			}
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: "Answer to " + request + "."}
	})
	// Only what a fresh install has: HOME, a PATH, and where the
	// controller listens.
	h.env = []string{"HOME=" + filepath.Join(h.dir, "home"), "PATH=" + os.Getenv("PATH"), "OLLAMA_HOST=" + h.ollama.URL,
		"CHORUS_INFERENCE_MODE=local", "CHORUS_OLLAMA_EXPERTS=false", "CHORUS_COMMAND_ENABLED=false", "TERM=xterm-256color", "NO_COLOR=1"}
	if err := os.MkdirAll(filepath.Join(h.dir, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	return h
}

// requestRE finds the user's request in a stage message.
var requestRE = regexp.MustCompile(`(?m)^Request: (.+)$`)

// requestOf is the request a stage message carries: the test requests are
// single words joined by spaces, found after "Request:", or the last line.
func requestOf(msg string) string {
	if m := requestRE.FindStringSubmatch(msg); m != nil {
		return strings.Trim(strings.TrimSpace(m[1]), `"`)
	}
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// run runs `chorus args…` in the home and returns stdout, stderr and the
// exit status.
func (h *home) run(args ...string) (string, string, int) {
	cmd := exec.Command(h.bin, args...)
	cmd.Env, cmd.Dir = h.env, filepath.Join(h.dir, "home")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// store is the home's sessions store (the default under HOME).
func (h *home) store() sessions.Store {
	return sessions.Store{Dir: filepath.Join(h.dir, "home", ".local", "share", "chorus", "sessions")}
}

// only returns the one saved session.
func (h *home) only() *sessions.Session {
	h.t.Helper()
	list, err := h.store().List()
	if err != nil || len(list) != 1 {
		h.t.Fatalf("want one saved session, have %d: %+v (%v)", len(list), list, err)
	}
	s, err := h.store().Load(list[0].ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func requestsOf(s *sessions.Session) []string {
	var out []string
	for _, t := range s.Turns {
		out = append(out, t.Request)
	}
	return out
}

// TestFreshHomeRunThenContinue: on a fresh install `chorus run` saves its
// turn into a new session and says its id; `chorus run --continue` then
// has that turn as history — the picture it made is the chat log's newest
// image, so a plan that names none takes it — and saves into the same
// session.
func TestFreshHomeRunThenContinue(t *testing.T) {
	t.Parallel()
	h := newHome(t, func(request string, _ *api.ChatRequest) string {
		switch request {
		case "make it half as big":
			return `{"tasks": [{"task": "image-resize", "id": 1, "dep": [], "args": {"image": "photo.png", "text": "50%"}}]}`
		case "now convert it to jpeg":
			// No image named: it must come from the chat log.
			return `{"tasks": [{"task": "image-convert", "id": 1, "dep": [], "args": {"text": "jpeg"}}]}`
		}
		return `{"tasks": []}`
	})
	photo := filepath.Join(h.dir, "home", "photo.png")
	writePNG(t, photo, 16, 12)

	_, stderr, code := h.run("run", "--attach", photo, "make it half as big")
	s := h.only()
	if code != 0 || !strings.HasSuffix(stderr, "session: "+s.ID+"\n") || len(s.Turns) != 1 {
		t.Fatalf("first run: exit %d stderr %q, session %+v", code, stderr, s)
	}
	made := s.Turns[0].Generated()
	if len(made) != 1 || !strings.HasSuffix(made[0], ".png") {
		t.Fatalf("the first turn made %v", made)
	}

	stdout, stderr, code := h.run("run", "--json", "--continue", "now convert it to jpeg")
	if code != 0 {
		t.Fatalf("--continue: exit %d stderr %q", code, stderr)
	}
	var plan pipeline.PlanEvent
	var end pipeline.TaskEndEvent
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var head struct{ Type string }
		_ = json.Unmarshal([]byte(line), &head)
		switch head.Type {
		case "plan":
			_ = json.Unmarshal([]byte(line), &plan)
		case "task_end":
			_ = json.Unmarshal([]byte(line), &end)
		}
	}
	if len(plan.Tasks) != 1 || plan.Tasks[0].Args["image"] != made[0] {
		t.Fatalf("the second turn's image did not resolve to the first turn's output %s: %+v", made[0], plan)
	}
	if end.Status != pipeline.StatusOK || len(end.Files) != 1 || !strings.HasSuffix(end.Files[0], ".jpg") {
		t.Fatalf("the conversion: %+v", end)
	}
	s = h.only()
	if !slices.Equal(requestsOf(s), []string{"make it half as big", "now convert it to jpeg"}) || !strings.Contains(stderr, "session: "+s.ID) {
		t.Fatalf("the session after --continue: %v, stderr %q", requestsOf(s), stderr)
	}
}

// TestConcurrentContinues: two `chorus run --continue` at once, ten times:
// every one of the twenty turns is saved in the one session.
func TestConcurrentContinues(t *testing.T) {
	t.Parallel()
	h := newHome(t, nil)
	if _, stderr, code := h.run("run", "seed"); code != 0 {
		t.Fatalf("seed: exit %d %s", code, stderr)
	}
	for round := range 10 {
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				if _, stderr, code := h.run("run", "--quiet", "--continue", fmt.Sprintf("round%d-writer%d", round, w)); code != 0 {
					t.Errorf("round %d writer %d: exit %d %s", round, w, code, stderr)
				}
			})
		}
		wg.Wait()
	}
	got := requestsOf(h.only())
	if len(got) != 21 {
		t.Fatalf("%d turns saved, want 21 (the seed and 20): %v", len(got), got)
	}
	for round := range 10 {
		for w := range 2 {
			if want := fmt.Sprintf("round%d-writer%d", round, w); !slices.Contains(got, want) {
				t.Errorf("turn %s was lost", want)
			}
		}
	}
}

// TestTUIAndRunShareASession: the TUI (in tmux) and `chorus run
// --continue` take turns on one session, three each; then /new and quit.
// The session holds all six turns, in the order they were asked.
func TestTUIAndRunShareASession(t *testing.T) {
	t.Parallel()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux); skipping the end-to-end test")
	}
	h := newHome(t, nil)
	script := filepath.Join(h.dir, "tui.sh")
	var sb strings.Builder
	sb.WriteString("#!/bin/sh\ncd \"$HOME\"\n")
	for _, kv := range h.env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&sb, "export %s=%q\n", k, v)
	}
	fmt.Fprintf(&sb, "exec %q 2>>%q\n", h.bin, filepath.Join(h.dir, "tui.stderr"))
	if err := os.WriteFile(script, []byte(sb.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := fmt.Sprintf("chorus-share-%d", os.Getpid())
	tm := func(args ...string) string {
		out, _ := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out)
	}
	if out, err := exec.Command(tmux, "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "tui", "-x", "120", "-y", "40", "sh "+script).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })
	screenHas := func(what, want string) {
		t.Helper()
		deadline := time.Now().Add(e2eWait)
		for {
			s := tm("capture-pane", "-p", "-t", "tui")
			if strings.Contains(s, want) {
				return
			}
			if time.Now().After(deadline) {
				stderr, _ := os.ReadFile(filepath.Join(h.dir, "tui.stderr"))
				t.Fatalf("timed out waiting for %s; screen:\n%s\nstderr:\n%s", what, s, stderr)
			}
			time.Sleep(50 * time.Millisecond) // capture-pane's polling interval
		}
	}
	send := func(text string) {
		t.Helper()
		tm("send-keys", "-t", "tui", "-l", text)
		tm("send-keys", "-t", "tui", "Enter")
	}
	screenHas("the status bar", "ollama ✓")
	var asked []string
	for i := 1; i <= 3; i++ {
		req := fmt.Sprintf("tui turn %d", i)
		send(req)
		screenHas("the answer to "+req, "Answer to "+req+".")
		asked = append(asked, req)
		req = fmt.Sprintf("run turn %d", i)
		if _, stderr, code := h.run("run", "--quiet", "--continue", req); code != 0 {
			t.Fatalf("%s: exit %d %s", req, code, stderr)
		}
		asked = append(asked, req)
	}
	send("/new")
	screenHas("the new session", "new session")
	tm("send-keys", "-t", "tui", "C-c")
	deadline := time.Now().Add(e2eWait)
	for tm("has-session", "-t", "tui") == "" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // waiting for the TUI to quit
	}
	if got := requestsOf(h.only()); !slices.Equal(got, asked) {
		t.Fatalf("the session holds %v, want %v", got, asked)
	}
}

// writePNG writes a w×h picture.
func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// savedSessions saves three sessions into h's store, oldest first — "Trip
// to Rome" (whose turn made a file), "Trip plan", "Lighthouse drawing" —
// and returns them.
func (h *home) savedSessions() (rome, plan, light *sessions.Session, made string) {
	h.t.Helper()
	made = filepath.Join(h.dir, "outputs", "rome.png")
	if err := os.MkdirAll(filepath.Dir(made), 0o700); err != nil {
		h.t.Fatal(err)
	}
	writePNG(h.t, made, 4, 4)
	st := h.store()
	var out []*sessions.Session
	for i, title := range []string{"Trip to Rome", "Trip plan", "Lighthouse drawing"} {
		s := st.New(title)
		turn := sessions.Record{Request: strings.ToLower(title) + " please", Answer: "Answer about " + title + "."}
		if i == 0 {
			turn.Report = &pipeline.Report{Answer: turn.Answer, Files: []string{made}}
		}
		s.AddTurn(turn)
		if err := st.Save(s); err != nil {
			h.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out[0], out[1], out[2], made
}

// TestSessionsCommand: `chorus sessions` lists, shows, exports and removes
// saved sessions from the command line, naming one by id, title or the
// start of either; several matches are refused (exit 2) listing them;
// rm removes by exact id, asks for --yes otherwise when it cannot ask,
// and leaves the files the session's turns made.
func TestSessionsCommand(t *testing.T) {
	t.Parallel()
	h := newHome(t, nil)
	if _, stderr, code := h.run("sessions"); code != 0 || !strings.Contains(stderr, "no saved sessions yet") {
		t.Fatalf("empty: exit %d, stderr %q", code, stderr)
	}
	rome, plan, light, made := h.savedSessions()

	for _, args := range [][]string{{"sessions"}, {"sessions", "list"}} {
		stdout, stderr, code := h.run(args...)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[1], light.ID) || !strings.HasPrefix(lines[3], rome.ID) ||
			!strings.HasSuffix(lines[1], "1  Lighthouse drawing") {
			t.Fatalf("chorus %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	stdout, _, code := h.run("sessions", "list", "--json")
	var listed []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Turns int    `json:"turns"`
	}
	if err := json.Unmarshal([]byte(stdout), &listed); code != 0 || err != nil || len(listed) != 3 || listed[2].ID != rome.ID || listed[2].Title != "Trip to Rome" {
		t.Fatalf("list --json: exit %d, %v, %q", code, err, stdout)
	}

	// show: by the start of a title, of an id, or latest; the transcript,
	// the turn's request and answer in it.
	want := sessions.Export(light)
	if !strings.Contains(want, "lighthouse drawing please") || !strings.Contains(want, "Answer about Lighthouse drawing.") {
		t.Fatalf("the transcript lacks the turn:\n%s", want)
	}
	for _, arg := range []string{"light", "LIGHTHOUSE DRAWING", light.ID, light.ID[:len(light.ID)-2], "latest"} {
		if stdout, stderr, code := h.run("sessions", "show", arg); code != 0 || stdout != want {
			t.Errorf("show %q: exit %d, stderr %q, stdout %q", arg, code, stderr, stdout)
		}
	}
	if stdout, _, code := h.run("sessions", "show", "--json", "rome"); code != 0 || !strings.Contains(stdout, `"id": "`+rome.ID+`"`) || !strings.Contains(stdout, made) {
		t.Errorf("show --json rome: exit %d, %q", code, stdout)
	}
	// Several match: the newest, saying which and naming the other.
	stdout, stderr, code := h.run("sessions", "show", "trip")
	if code != 0 || stdout != sessions.Export(plan) || !strings.Contains(stderr, `2 sessions match "trip": taking the newest, Trip plan (`+plan.ID+")") ||
		!strings.Contains(stderr, rome.ID) {
		t.Errorf("show trip: exit %d, stderr %q, stdout %q; want Trip plan, Trip to Rome named", code, stderr, stdout)
	}
	if stdout, stderr, code := h.run("sessions", "show", "nothing like it"); code != 2 || stdout != "" ||
		!strings.Contains(stderr, `no saved session's id or title starts with "nothing like it"`) || !strings.Contains(stderr, "chorus sessions lists them") {
		t.Errorf("show of nothing: exit %d, stderr %q", code, stderr)
	}

	// export: chorus-ID.md by default, -o FILE, - for stdout.
	if _, stderr, code := h.run("sessions", "export", "light"); code != 0 || !strings.Contains(stderr, "chorus-"+light.ID+".md") {
		t.Fatalf("export: exit %d, stderr %q", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "home", "chorus-"+light.ID+".md")); err != nil || string(b) != want {
		t.Errorf("exported file: %v, %q", err, b)
	}
	out := filepath.Join(h.dir, "t", "rome.md")
	if _, stderr, code := h.run("sessions", "export", "rome", "-o", out); code != 0 {
		t.Fatalf("export -o: exit %d, stderr %q", code, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), made) {
		t.Errorf("export -o: %v, %q", err, b)
	}
	if stdout, _, code := h.run("sessions", "export", light.ID, "-o", "-"); code != 0 || stdout != want {
		t.Errorf("export -o -: exit %d, %q", code, stdout)
	}

	// rm: by title only with --yes here (no terminal to ask on).
	if _, stderr, code := h.run("sessions", "rm", "trip to"); code != 2 || !strings.Contains(stderr, rome.ID) || !strings.Contains(stderr, "--yes") {
		t.Errorf("rm by title without --yes: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := h.run("sessions", "rm", "--yes", "trip"); code != 2 || !strings.Contains(stderr, plan.ID) || !strings.Contains(stderr, rome.ID) ||
		!strings.Contains(stderr, "give more of the title, or the id") {
		t.Errorf("rm of an ambiguous title: exit %d, stderr %q; want both listed, exit 2", code, stderr)
	}
	if _, stderr, code := h.run("sessions", "rm", "20990101-000000-000-dead"); code != 2 || !strings.Contains(stderr, "20990101-000000-000-dead") ||
		!strings.Contains(stderr, "chorus sessions lists them") {
		t.Errorf("rm of an unknown id: exit %d, stderr %q; want exit 2 naming the id and chorus sessions", code, stderr)
	}
	if list, _ := h.store().List(); len(list) != 3 {
		t.Fatalf("a refused rm removed something: %d left", len(list))
	}
	if _, stderr, code := h.run("sessions", "rm", "--yes", "trip to"); code != 0 || !strings.Contains(stderr, "removed session "+rome.ID) ||
		!strings.Contains(stderr, "the 1 file(s) its turns made stay") {
		t.Errorf("rm --yes: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(made); err != nil {
		t.Errorf("rm removed the file the session made: %v", err)
	}
	if _, stderr, code := h.run("sessions", "rm", plan.ID); code != 0 || !strings.Contains(stderr, "removed session "+plan.ID) {
		t.Errorf("rm ID: exit %d, stderr %q", code, stderr)
	}
	if list, _ := h.store().List(); len(list) != 1 || list[0].ID != light.ID {
		t.Errorf("left: %+v", list)
	}
}

// TestContinueByTitle: `chorus run --continue=TITLE` (and --session TITLE)
// continues the session whose title starts so and says which; of several,
// the newest, naming the others; none is refused (exit 2) saying so, and
// nothing runs or is saved.
func TestContinueByTitle(t *testing.T) {
	t.Parallel()
	h := newHome(t, nil)
	rome, plan, light, _ := h.savedSessions()
	_, stderr, code := h.run("run", "--continue=trip", "which one?")
	if code != 0 || !strings.Contains(stderr, `2 sessions match "trip": taking the newest, Trip plan (`+plan.ID+")") ||
		!strings.Contains(stderr, rome.ID) || !strings.Contains(stderr, "continuing session Trip plan ("+plan.ID+") after 1 turn(s)") {
		t.Fatalf("--continue=trip: exit %d, stderr %q; want Trip plan continued, Trip to Rome named", code, stderr)
	}
	if s, _ := h.store().Load(plan.ID); strings.Join(requestsOf(s), "|") != "trip plan please|which one?" {
		t.Errorf("--continue=trip: Trip plan has %q", requestsOf(s))
	}
	if s, _ := h.store().Load(rome.ID); len(s.Turns) != 1 {
		t.Errorf("--continue=trip saved into the older Trip to Rome too: %q", requestsOf(s))
	}
	if _, stderr, code = h.run("run", "--continue=rome", "and the food?"); code != 0 || !strings.Contains(stderr, "continuing session Trip to Rome") {
		t.Fatalf("--continue=rome: exit %d, stderr %q", code, stderr)
	}
	if s, err := h.store().Load(rome.ID); err != nil || strings.Join(requestsOf(s), "|") != "trip to rome please|and the food?" {
		t.Fatalf("rome: %v %v", err, s)
	}
	if _, stderr, code := h.run("run", "--session", "Lighthouse", "brighter"); code != 0 || !strings.Contains(stderr, light.ID) {
		t.Fatalf("--session Lighthouse: exit %d, stderr %q", code, stderr)
	}
	before, _ := h.store().List()
	stdout, stderr, code := h.run("run", "--continue=paris", "anything?")
	if after, _ := h.store().List(); code != 2 || stdout != "" || len(after) != len(before) ||
		!strings.Contains(stderr, `no saved session's id or title starts with "paris"`) || !strings.Contains(stderr, "chorus sessions lists them") {
		t.Fatalf("--continue=paris: exit %d, stdout %q, stderr %q, %d sessions (were %d); want exit 2, none matched, nothing saved", code, stdout, stderr, len(after), len(before))
	}
	// The bare flag still continues the newest: Lighthouse, continued last.
	if _, stderr, code := h.run("run", "-c", "newest?"); code != 0 || !strings.Contains(stderr, "continuing session Lighthouse drawing ("+light.ID+")") {
		t.Fatalf("-c: exit %d, stderr %q", code, stderr)
	}
}

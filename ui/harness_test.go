package ui

import (
	"context"
	"crypto/rand"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// guard bounds waits that end at once in a working build; it only fails a
// broken one and never paces a test.
const guard = 20 * time.Second

// fixedNow is the clock of golden tests: timers and spinners render the
// same on every run.
var fixedNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// testConfig loads the real defaults (config.yaml) with a clean
// environment: no user file, no Hugging Face token.
func testConfig(t testing.TB) *config.Config {
	t.Helper()
	_, env := testkit.Isolate(t)
	defaults, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(defaults, "", env)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// script is what the fake controller answers at each HuggingGPT stage.
type script struct {
	mu sync.Mutex
	// plan is the planning reply (JSON).
	plan string
	// answer is the response stage's reply; stall holds it open after
	// streaming it, until the client goes away (for cancellation).
	answer string
	stall  bool
	// chunkDelay paces the answer's tokens.
	chunkDelay time.Duration
	// responding is closed when the response stage starts streaming.
	responding chan struct{}
	once       sync.Once
}

// planStage tells which stage a controller request serves, from the
// marker its last message starts with.
func planStage(req *api.ChatRequest) pipeline.Stage {
	if len(req.Messages) == 0 {
		return ""
	}
	return pipeline.Stage(pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content))
}

func (s *script) reply(req *api.ChatRequest) fakeollama.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch planStage(req) {
	case pipeline.StagePlanning:
		return fakeollama.Reply{Content: s.plan}
	case pipeline.StageSelection:
		return fakeollama.Reply{Content: `{"choices": []}`}
	}
	if s.responding != nil {
		s.once.Do(func() { close(s.responding) })
	}
	return fakeollama.Reply{Content: s.answer, Stall: s.stall, ChunkDelay: s.chunkDelay}
}

// testEnv is an engine wired to a fake Ollama and the built-in image tools.
type testEnv struct {
	cfg    *config.Config
	ollama *fakeollama.Server
	eng    *pipeline.Engine
	script *script
	out    string
	image  string
}

func newTestEnv(t testing.TB) *testEnv { return newTestEnvVia(t, nil) }

// newTestEnvVia is newTestEnv with the controller reaching the fake through
// via, which returns the URL to use for the fake's (a proxy, for an Ollama
// that goes away and comes back).
func newTestEnvVia(t testing.TB, via func(url string) string) *testEnv {
	t.Helper()
	cfg := testConfig(t)
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B",
		Capabilities: []string{"completion", "tools"}})
	srv.AddModel(fakeollama.Model{Name: "llama3.2:3b", ParameterSize: "3.2B"})
	sc := &script{plan: `{"tasks": []}`, answer: "Hello!"}
	srv.OnChat(sc.reply)
	host := srv.URL
	if via != nil {
		host = via(srv.URL)
	}
	ctl, err := controller.New(host, "qwen3:8b", controller.Options{Timeout: guard})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	root := testRoot(t)
	out := filepath.Join(root, "out")
	router := endpoints.NewRouter(endpoints.ModeLocal, builtin.New())
	eng := pipeline.New(ctl, cat, router, pipeline.Options{OutputDir: out, ControllerTasks: true, MaxParallel: 1})
	cfg.Controller.Host, cfg.InferenceMode, cfg.OutputDir = host, "local", out
	return &testEnv{cfg: cfg, ollama: srv, eng: eng, script: sc, out: out, image: writeTestPNG(t, root)}
}

// writeTestPNG writes a small gradient picture.
func writeTestPNG(t testing.TB, dir string) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 32, 24))
	for y := 0; y < 24; y++ {
		for x := 0; x < 32; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 8), uint8(y * 10), 160, 255})
		}
	}
	p := filepath.Join(dir, "fox.png")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// env returns a fixed environment: no colour, no graphics, and a fake
// terminal, so frames render the same everywhere.
func fixedEnv(extra map[string]string) func(string) string {
	env := map[string]string{"NO_COLOR": "1", "TERM": "xterm-256color", "EDITOR": "false"}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

func (e *testEnv) options(t testing.TB) Options {
	return Options{Config: e.cfg, Service: testService(t, e.eng, filepath.Join(t.TempDir(), "sessions")),
		Getenv: fixedEnv(nil), Now: func() time.Time { return fixedNow }}
}

// savedTurns reads m's session back from its file.
func savedTurns(t testing.TB, m *Model) []conversation.Record {
	t.Helper()
	s, err := m.conv.Service().Open(m.conv.Session().ID())
	if err != nil {
		t.Fatalf("session not saved: %v", err)
	}
	return s.Turns()
}

// testService is the chat service over eng, keeping sessions in dir, on
// the tests' fixed clock.
func testService(t testing.TB, eng *pipeline.Engine, dir string) *conversation.Service {
	t.Helper()
	svc, err := conversation.New(conversation.Options{Engine: eng, Dir: dir, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func (e *testEnv) model(t testing.TB) *Model {
	t.Helper()
	m, err := New(e.options(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// probe wraps the model in a running program and reports, from the
// program's own goroutine, when a condition on the model holds: tests wait
// on state, not on time or on bytes of terminal output.
type probe struct {
	*Model
	mu    sync.Mutex
	conds []*cond
}

type cond struct {
	f    func(*Model) bool
	hit  chan struct{}
	once sync.Once
}

func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if !p.applyTestMsg(msg) {
		_, cmd = p.Model.Update(msg)
	}
	p.mu.Lock()
	kept := p.conds[:0]
	for _, c := range p.conds {
		if c.f(p.Model) {
			c.once.Do(func() { close(c.hit) })
			continue // a condition fires once and is forgotten
		}
		kept = append(kept, c)
	}
	p.conds = kept
	p.mu.Unlock()
	return p, cmd
}

// when registers a condition; the returned channel closes once it holds.
func (p *probe) when(f func(*Model) bool) <-chan struct{} {
	c := &cond{f: f, hit: make(chan struct{})}
	p.mu.Lock()
	p.conds = append(p.conds, c)
	p.mu.Unlock()
	return c.hit
}

// tsession runs a model in a teatest program.
type tsession struct {
	t  *testing.T
	tm *teatest.TestModel
	p  *probe
}

func startSession(t *testing.T, m *Model, w, h int) *tsession {
	t.Helper()
	p := &probe{Model: m}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() { _ = tm.Quit() })
	return &tsession{t: t, tm: tm, p: p}
}

// wait blocks until f holds; the program's next update checks it.
func (s *tsession) wait(what string, f func(*Model) bool) {
	s.t.Helper()
	ch := s.p.when(f)
	s.tm.Send(pokeMsg{}) // re-check state reached before the condition was registered
	select {
	case <-ch:
	case <-time.After(guard):
		s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s.snapshot())
	}
}

// snapshot returns the current frame, read on the program's goroutine.
func (s *tsession) snapshot() string {
	var f string
	ch := s.p.when(func(m *Model) bool {
		if f == "" {
			f = frame(m) + "\nnotice: " + m.notice.text
		}
		return true
	})
	s.tm.Send(pokeMsg{})
	select {
	case <-ch:
		return f
	case <-time.After(time.Second):
		return "(the program does not answer)"
	}
}

// pokeMsg is an otherwise ignored message that makes the probe look.
type pokeMsg struct{}

// finish stops the program and returns the final model, safe to inspect.
func (s *tsession) finish() *Model {
	s.t.Helper()
	_ = s.tm.Quit()
	fm := s.tm.FinalModel(s.t, teatest.WithFinalTimeout(guard))
	m := fm.(*probe).Model
	m.saves.Wait() // background saves write into the test's temporary directory
	return m
}

func (s *tsession) typeText(text string) { s.tm.Type(text) }

func (s *tsession) key(k tea.KeyPressMsg) { s.tm.Send(k) }

var (
	keyEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
	keyCtrlC = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	keyEsc   = tea.KeyPressMsg{Code: tea.KeyEscape}
	keyUp    = tea.KeyPressMsg{Code: tea.KeyUp}
	keyF3    = tea.KeyPressMsg{Code: tea.KeyF3}
)

// frame is the model's screen as plain text: styles stripped, trailing
// blanks trimmed, and run-dependent numbers (durations measured by the
// engine, tokens per second) replaced, so goldens compare layout and
// content.
func frame(m *Model) string {
	content := m.View().Content
	lines := strings.Split(ansi.Strip(content), "\n")
	for i, l := range lines {
		l = scrubFiles(l)
		if t := scrubTimes(l); t != l {
			// The engine measures task times itself; their width varies
			// from run to run, so the padding after them does too.
			l = spacesRE.ReplaceAllString(t, "  ")
		}
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

var (
	durationRE = regexp.MustCompile(`\b\d+(\.\d+)? ?(ms|s)\b`)
	tpsRE      = regexp.MustCompile(`\b\d+(\.\d+)?[kM]? tok/s`)
)

// testRoot is a fixed-length directory for the files that appear on
// screen, so paths wrap the same on every run.
func testRoot(t testing.TB) string {
	t.Helper()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	dir := fmt.Sprintf("/tmp/chorus-ui-%x", b)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skipf("cannot create %s: %v", dir, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

var (
	spacesRE = regexp.MustCompile(`  +`)
	portRE   = regexp.MustCompile(`127\.0\.0\.1:\d{5}`)
	// partialRootRE is the end of a root cut by a left truncation ("…8/out").
	partialRootRE = regexp.MustCompile(`…[0-9a-f-uiorshc]{1,22}/(out|fox)`)
	rootRE        = regexp.MustCompile(`/tmp/chorus-ui-[0-9a-f]{8}`)
	stampRE       = regexp.MustCompile(`\d{8}-\d{6}-`)
	suffixRE      = regexp.MustCompile(`-[0-9a-f]{6}\.`)
)

// scrubFiles replaces the random parts of file paths with fixed text of
// the same length.
func scrubFiles(s string) string {
	s = rootRE.ReplaceAllString(s, "/tmp/chorus-ui-00000000")
	s = portRE.ReplaceAllString(s, "127.0.0.1:40000")
	s = partialRootRE.ReplaceAllStringFunc(s, func(m string) string {
		// Keep the length; only the random hex digits change.
		full := "/tmp/chorus-ui-00000000"
		i := strings.LastIndex(m, "/")
		kept := m[len("…"):i]
		return "…" + full[len(full)-len(kept):] + m[i:]
	})
	s = stampRE.ReplaceAllString(s, "20260314-150926-")
	return suffixRE.ReplaceAllString(s, "-000000.")
}

func scrubTimes(s string) string {
	s = tpsRE.ReplaceAllString(s, "N tok/s")
	return durationRE.ReplaceAllStringFunc(s, func(d string) string {
		if strings.Contains(d, " ") {
			return "N ms"
		}
		return "Nms"
	})
}

// ctx is a test context bounded by guard.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

// Package ollamatest starts a real Ollama server for tests, serving a tiny
// random-weight model written by tinygguf. Tests that use it skip (with a
// message saying how to install Ollama) when no binary is found.
package ollamatest

import (
	"bytes"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/internal/tinygguf"
)

// Model is the name the tiny model is served under.
const Model = "tiny"

// Binary finds a real Ollama server binary: CHORUS_OLLAMA_BIN, then PATH,
// then where DEVELOPERS.md installs it. It returns "" when there is none.
func Binary() string {
	if p := os.Getenv("CHORUS_OLLAMA_BIN"); p != "" {
		return p
	}
	if p, err := exec.LookPath("ollama"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "ollama-bin", "ollama")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start serves a real Ollama on a private port and model directory, loads
// the tiny model into it as Model, and returns its base URL. The server is
// killed, with the runner it forks, when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	return StartWith(t, Options{})
}

// Options change the server Start runs.
type Options struct {
	// Context is the tiny model's context length in tokens (default
	// 2048). Its tokens are bytes: Chorus's whole prompt head needs about
	// 8,192, and a client asking num_ctx beyond it gets this.
	Context uint32
	// Parallel is OLLAMA_NUM_PARALLEL (default 4): the slots the context
	// is shared between.
	Parallel int
}

// StartWith is Start with opts.
func StartWith(t testing.TB, opts Options) string {
	t.Helper()
	skipWithout(t)
	srv, err := start(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.stop()
		if t.Failed() {
			t.Logf("ollama serve log (tail):\n%s", tail(srv.logs.String(), 3000))
		}
	})
	return srv.url
}

// shared is the one server Shared starts in a test binary.
var shared struct {
	once sync.Once
	dir  string
	srv  *server
	err  error
}

// SharedContext is the tiny model's context on the Shared server. Most
// of Chorus's prompts are longer than the model's context, and the server
// keeps their last SharedContext tokens (at Start's 2,048, the last
// 2,048); prefilling costs about the square of that, and the shared
// server serves many turns: cli's TestRealOllamaController took 9.3 s of
// the server's CPU at 2,048, 3.0 s at 1,024.
const SharedContext = 1024

// Shared is the base URL of one real Ollama server for the whole test
// binary — Start's, with SharedContext — started by the first test that
// asks: starting a server and loading the model into it for every test
// cost seconds each, more on a loaded machine. Tests that share it must
// not depend on what the others ask of it (its prompt cache, its slots,
// its models); a test that does, or that stops or reconfigures its
// server, calls Start or StartWith for one of its own. The package's
// TestMain calls StopShared after m.Run.
func Shared(t testing.TB) string {
	t.Helper()
	skipWithout(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "ollamatest-")
		if shared.err == nil {
			shared.srv, shared.err = start(shared.dir, Options{Context: SharedContext})
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shared ollama serve log (tail):\n%s", tail(shared.srv.logs.String(), 3000))
		}
	})
	return shared.srv.url
}

// StopShared kills the server Shared started, if it did, and removes its
// folder; TestMain calls it once the tests ran.
func StopShared() {
	if shared.srv != nil {
		shared.srv.stop()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
}

// skipWithout skips the test when no server can be started: no binary,
// or -short.
func skipWithout(t testing.TB) {
	t.Helper()
	if Binary() == "" {
		t.Skip("no Ollama binary: set CHORUS_OLLAMA_BIN or install it as DEVELOPERS.md describes")
	}
	if testing.Short() {
		t.Skip("-short: skipping tests that start a real Ollama server")
	}
}

// server is a running `ollama serve` with the tiny model loaded.
type server struct {
	url    string
	cmd    *exec.Cmd
	exited <-chan struct{}
	logs   *syncBuffer
}

// stop kills the server's process group: the server and the runner it
// forked.
func (s *server) stop() {
	killGroup(s.cmd)
	<-s.exited
}

// launch starts cmd from a goroutine that keeps its OS thread until cmd
// has exited: on Linux the server dies with the thread that started it
// (ownGroup), and Go ends idle threads at will unless a goroutine holds
// one. exited closes once cmd was waited for.
func launch(cmd *exec.Cmd) (exited <-chan struct{}, err error) {
	started, done := make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		defer close(done)
		err := cmd.Start()
		started <- err
		if err == nil {
			_ = cmd.Wait()
		}
	}()
	return done, <-started
}

// start serves a real Ollama on a private port and model directory under
// dir, and loads the tiny model into it as Model.
func start(dir string, opts Options) (*server, error) {
	if opts.Context == 0 {
		opts.Context = 2048
	}
	if opts.Parallel == 0 {
		opts.Parallel = 4
	}
	bin := Binary()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	host := l.Addr().String()
	l.Close()
	env := serverEnv(os.Environ(), host, dir, opts.Parallel)
	logs := &syncBuffer{}
	srv := exec.Command(bin, "serve")
	srv.Env, srv.Stdout, srv.Stderr = env, logs, logs
	// Its own process group, so the model runner it forks goes with it.
	ownGroup(srv)
	srv.WaitDelay = 5 * time.Second
	exited, err := launch(srv)
	if err != nil {
		return nil, fmt.Errorf("start ollama: %w", err)
	}
	s := &server{url: "http://" + host, cmd: srv, exited: exited, logs: logs}
	fail := func(err error) (*server, error) {
		s.stop()
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.url + "/api/version")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("ollama did not start: %w\n%s", err, logs.String()))
		}
		time.Sleep(100 * time.Millisecond) // an external process coming up: nothing to wait on but its port
	}
	gguf := filepath.Join(dir, "tiny.gguf")
	if err := tinygguf.WriteContext(gguf, 1, opts.Context); err != nil {
		return fail(err)
	}
	// One thread: the tiny model needs no more, and ggml's threads spin
	// while they wait for each other — on a machine whose cores are busy
	// with other tests, two of them made every reply ten times slower.
	modelfile := filepath.Join(dir, "Modelfile")
	mf := fmt.Sprintf("FROM %s\nTEMPLATE \"\"\"{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n\"\"\"\nPARAMETER num_thread 1\n", gguf)
	if err := os.WriteFile(modelfile, []byte(mf), 0o644); err != nil {
		return fail(err)
	}
	create := exec.Command(bin, "create", Model, "-f", modelfile)
	create.Env = env
	if out, err := create.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("ollama create: %w\n%s", err, out))
	}
	return s, nil
}

// syncBuffer is the server's output, written by exec's copying goroutine
// while a test may read it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// serverVars are the variables of the test's environment the server it
// starts inherits: what a program runs with (PATH, the locale, TMPDIR),
// what finds and picks a GPU, and those starting with a prefix of
// serverPrefixes. Nothing else — HF_TOKEN, OPENAI_API_KEY, CHORUS_*_KEY —
// reaches it: the allow-list of every program Chorus starts
// (endpoints.ChildEnv), here too.
var serverVars = []string{"PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "USER", "LOGNAME", "LD_LIBRARY_PATH",
	"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}

// serverPrefixes: the locale's LC_* and the server's own OLLAMA_*
// settings (OLLAMA_DEBUG, OLLAMA_LLM_LIBRARY…), which a developer sets
// for it on purpose.
var serverPrefixes = []string{"LC_", "OLLAMA_"}

// serverEnv is the environment of the server started in dir on host: of
// own (the test's), serverVars and serverPrefixes' variables, then its
// own settings, which replace the developer's.
func serverEnv(own []string, host, dir string, parallel int) []string {
	set := map[string]string{"OLLAMA_HOST": host, "OLLAMA_MODELS": filepath.Join(dir, "models"), "HOME": dir, "OLLAMA_NUM_PARALLEL": strconv.Itoa(parallel)}
	var out []string
	for _, kv := range own {
		k, _, ok := strings.Cut(kv, "=")
		if _, mine := set[k]; !ok || mine {
			continue
		}
		if slices.Contains(serverVars, k) || slices.ContainsFunc(serverPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}

// Package ollamatest starts a real Ollama server for tests, serving a tiny
// random-weight model written by tinygguf. Tests that use it skip (with a
// message saying how to install Ollama) when no binary is found.
package ollamatest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
	if opts.Context == 0 {
		opts.Context = 2048
	}
	if opts.Parallel == 0 {
		opts.Parallel = 4
	}
	bin := Binary()
	if bin == "" {
		t.Skip("no Ollama binary: set CHORUS_OLLAMA_BIN or install it as DEVELOPERS.md describes")
	}
	if testing.Short() {
		t.Skip("-short: skipping tests that start a real Ollama server")
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	env := append(os.Environ(), "OLLAMA_HOST="+host, "OLLAMA_MODELS="+filepath.Join(dir, "models"), "HOME="+dir, fmt.Sprintf("OLLAMA_NUM_PARALLEL=%d", opts.Parallel))
	var logs bytes.Buffer
	srv := exec.Command(bin, "serve")
	srv.Env, srv.Stdout, srv.Stderr = env, &logs, &logs
	// Its own process group, so the model runner it forks goes with it.
	ownGroup(srv)
	srv.WaitDelay = 5 * time.Second
	if err := srv.Start(); err != nil {
		t.Fatalf("start ollama: %v", err)
	}
	t.Cleanup(func() {
		killGroup(srv)
		_ = srv.Wait()
		if t.Failed() {
			t.Logf("ollama serve log (tail):\n%s", tail(logs.String(), 3000))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + host + "/api/version")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ollama did not start: %v\n%s", err, logs.String())
		}
		time.Sleep(100 * time.Millisecond) // an external process coming up: nothing to wait on but its port
	}
	gguf := filepath.Join(dir, "tiny.gguf")
	if err := tinygguf.WriteContext(gguf, 1, opts.Context); err != nil {
		t.Fatal(err)
	}
	modelfile := filepath.Join(dir, "Modelfile")
	mf := fmt.Sprintf("FROM %s\nTEMPLATE \"\"\"{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n\"\"\"\nPARAMETER num_thread 1\n", gguf)
	if err := os.WriteFile(modelfile, []byte(mf), 0o644); err != nil {
		t.Fatal(err)
	}
	create := exec.Command(bin, "create", Model, "-f", modelfile)
	create.Env = env
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("ollama create: %v\n%s", err, out)
	}
	return "http://" + host
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

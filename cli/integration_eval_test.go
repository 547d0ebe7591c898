package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/internal/ollamatest"
)

// TestRealOllamaEval runs `chorus eval` against a real Ollama server whose
// controller model has random weights: two requests of the embedded suite,
// a small token bound. Its plans are nonsense, so the scores are near
// zero — but the command must end with its table, exit 0, and never hang.
func TestRealOllamaEval(t *testing.T) {
	t.Parallel()
	host := ollamatest.Shared(t)
	work := t.TempDir()
	chorus := chorusBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chorus, "eval", "--limit", "2")
	cmd.Env = append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"), "XDG_CACHE_HOME="+filepath.Join(work, "cache"),
		"XDG_DATA_HOME="+filepath.Join(work, "data"), "XDG_STATE_HOME="+filepath.Join(work, "state"),
		"HF_HOME="+filepath.Join(work, "hf"), "NO_COLOR=1",
		"OLLAMA_HOST="+host, "CHORUS_CONTROLLER_MODEL="+ollamatest.Model, "CHORUS_CONTROLLER_PLAN_TOKENS=64",
		"CHORUS_CONTROLLER_NUM_CTX=4096", "CHORUS_CONTROLLER_TIMEOUT=90s")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("chorus eval hung: nothing after %s\nstderr: %s", time.Since(start).Round(time.Second), tail(stderr.String(), 2000))
	}
	t.Logf("exit in %s:\n%s", time.Since(start).Round(time.Millisecond), stdout.String())
	if err != nil {
		t.Fatalf("chorus eval: %v\nstderr: %s", err, tail(stderr.String(), 2000))
	}
	out := stdout.String()
	for _, want := range []string{ollamatest.Model + " · suite chorus · 2 request(s)", "valid plan, as written", "node F1", "FoT flow of thought", "controller errors"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	// A random-weight model does not write the gold's flow of thought
	// (on two requests it would take a lucky draw among 54 tasks twice).
	m := regexp.MustCompile(`FoT flow of thought\s+(\d+)%`).FindStringSubmatch(out)
	if m == nil || m[1] == "100" {
		t.Errorf("a random-weight model should score FoT near 0%%, got %v:\n%s", m, out)
	}
}

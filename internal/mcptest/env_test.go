package mcptest

import (
	"slices"
	"strings"
	"testing"
)

// TestServerEnvHoldsNoSecrets: the reference server EverythingHTTP starts
// — whose printEnv tool answers with its whole environment — gets what
// node runs with and its port, none of the developer's tokens and keys.
func TestServerEnvHoldsNoSecrets(t *testing.T) {
	t.Parallel()
	own := []string{"PATH=/usr/bin", "HOME=/home/dev", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMPDIR=/tmp/x", "PORT=1",
		"HF_TOKEN=hf_secret", "HUGGING_FACE_HUB_TOKEN=hf_secret2", "OPENAI_API_KEY=sk-secret", "CHORUS_OPENAI_KEY=sk-chorus", "GITHUB_TOKEN=ghp"}
	env := serverEnv(own, 4321)
	for _, kv := range env {
		if strings.Contains(kv, "secret") || strings.Contains(kv, "sk-") || strings.HasPrefix(kv, "GITHUB_") {
			t.Errorf("the server's environment holds %q", kv)
		}
	}
	for _, want := range []string{"PATH=/usr/bin", "HOME=/home/dev", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMPDIR=/tmp/x", "PORT=4321"} {
		if !slices.Contains(env, want) {
			t.Errorf("the server's environment lacks %q: %q", want, env)
		}
	}
	if slices.Contains(env, "PORT=1") {
		t.Errorf("the developer's PORT is left beside the server's: %q", env)
	}
}

package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Isolate gives the test a home of its own and returns it: the XDG
// directories (config, data, cache, state) and HF_HOME under a temporary
// directory, and no token, Ollama address or CHORUS_* setting from the
// environment of whoever runs the tests, so config.Load reads only the
// defaults.
func Isolate(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for k, sub := range map[string]string{"XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache",
		"XDG_STATE_HOME": "state", "HF_HOME": "hf"} {
		t.Setenv(k, filepath.Join(dir, sub))
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CHORUS_") {
			t.Setenv(k, "")
		}
	}
	for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OLLAMA_HOST"} {
		t.Setenv(k, "")
	}
	return dir
}

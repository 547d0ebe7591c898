package testkit

import (
	"path/filepath"
	"testing"
)

// Isolate gives the test a home of its own: a temporary directory, and an
// environment (config.Env) whose XDG directories (config, data, cache,
// state), HF_HOME and HOME are under it, with no token, Ollama address or
// CHORUS_* setting — so config.Load reads only the defaults, and the
// developer's own setup cannot leak in. Nothing of the process changes, so
// the test may run in parallel.
func Isolate(t testing.TB) (dir string, env map[string]string) {
	t.Helper()
	dir = t.TempDir()
	env = map[string]string{}
	for k, sub := range map[string]string{"XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache",
		"XDG_STATE_HOME": "state", "HF_HOME": "hf", "HOME": "home"} {
		env[k] = filepath.Join(dir, sub)
	}
	return dir, env
}

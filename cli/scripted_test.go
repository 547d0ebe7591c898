package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
)

// scriptedEnv is a cliEnv whose planner replies with plans in order (the
// last one again once they run out) and whose other stages all answer
// answer.
func scriptedEnv(t *testing.T, answer string, plans ...string) *cliEnv {
	t.Helper()
	n := 0
	return newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			p := plans[min(n, len(plans)-1)]
			n++
			return fakeollama.Reply{Content: p}
		}
		return fakeollama.Reply{Content: answer}
	})
}

// writeUserConfig writes yaml as the user's config.yaml (in e's
// $XDG_CONFIG_HOME/chorus).
func (e *cliEnv) writeUserConfig(yaml string) {
	e.t.Helper()
	dir := e.env.ConfigDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/sessions"
)

// TestContinueRefusesAnUnloadableNewestSession: when the newest saved
// session cannot be loaded, `chorus run --continue` says so, names the fix
// and fails — it does not start a new session, nor go on with an older one
// in its place.
func TestContinueRefusesAnUnloadableNewestSession(t *testing.T) {
	newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: "answered"}
	})
	var st sessions.Store
	older := st.New("")
	older.AddTurn(sessions.Turn{Request: "an older conversation", Answer: "yes"})
	if err := st.Save(older); err != nil {
		t.Fatal(err)
	}
	// A newer file that does not read (written over by hand, cut short).
	newest := "29990101-000000-000-abcd"
	path := filepath.Join(sessions.DefaultDir(), newest+".json")
	if err := os.WriteFile(path, []byte(`{"version":1,"turns":[{"request":"cut`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A damaged file is as new as its modification time, which the kernel
	// stamps from a coarse clock: written within a tick of the older
	// session's save, it could read as older than that session's precise
	// updated time (a flake of the whole suite). An hour later, it is the
	// newest.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI("run", "--continue", "and then?")
	if code != 1 || !strings.Contains(stderr, "the newest session cannot be loaded") || !strings.Contains(stderr, newest) ||
		!strings.Contains(stderr, "run without --continue to start a new session") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	list, _ := st.List()
	if len(list) != 2 {
		t.Fatalf("%d sessions after the refused run, want the 2 there were", len(list))
	}
	if s, err := st.Load(older.ID); err != nil || len(s.Turns) != 1 {
		t.Fatalf("the older session was continued in its place: %v", err)
	}
}

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
	damaged := filepath.Join(sessions.DefaultDir(), newest+".json")
	if err := os.WriteFile(damaged, []byte(`{"version":1,"turns":[{"request":"cut`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Its modification time is all that dates it; the file system's clock
	// is coarser than the one that stamped the older session's Updated, so
	// a write right after can read as older. Date it plainly later.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(damaged, later, later); err != nil {
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

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
	t.Parallel()
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: "answered"}
	})
	st := sessions.Store{Dir: e.env.SessionsDir()}
	older := st.New("")
	older.AddTurn(sessions.Record{Request: "an older conversation", Answer: "yes"})
	if err := st.Save(older); err != nil {
		t.Fatal(err)
	}
	// A newer file that does not read (written over by hand, cut short).
	newest := "29990101-000000-000-abcd"
	damaged := filepath.Join(e.env.SessionsDir(), newest+".json")
	if err := os.WriteFile(damaged, []byte(`{"version":1,"turns":[{"request":"cut`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Newest by its time too: a file's mtime comes from a coarse clock
	// (a kernel tick), which can be behind the saved session's Updated.
	if later := time.Now().Add(time.Minute); os.Chtimes(damaged, later, later) != nil {
		t.Fatal("cannot date the damaged file")
	}
	_, stderr, code := e.run("run", "--continue", "and then?")
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

// TestPlanOnlySavesNoSession: `chorus run --plan-only` prints a plan and
// keeps no session (issue 27): a later --continue does not take the
// unanswered request for the newest conversation, and a continued
// session does not gain it.
func TestPlanOnlySavesNoSession(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: "answered"}
	})
	stdout, stderr, code := e.run("run", "--plan-only", "plan a trip")
	if code != 0 || !strings.Contains(stdout, `"tasks"`) || strings.Contains(stderr, "session:") {
		t.Fatalf("--plan-only: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	st := sessions.Store{Dir: e.env.SessionsDir()}
	if list, _ := st.List(); len(list) != 0 {
		t.Fatalf("--plan-only saved %d session(s)", len(list))
	}
	if _, stderr, code = e.run("run", "--continue", "hello"); code != 0 || !strings.Contains(stderr, "no saved session yet") {
		t.Fatalf("--continue after --plan-only: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code = e.run("run", "--continue", "--plan-only", "and then?"); code != 0 {
		t.Fatalf("--continue --plan-only: exit %d, stderr %q", code, stderr)
	}
	list, _ := st.List()
	if len(list) != 1 {
		t.Fatalf("%d sessions, want the one hello started", len(list))
	}
	if s, err := st.Load(list[0].ID); err != nil || len(s.Turns) != 1 || s.Turns[0].Request != "hello" {
		t.Fatalf("the session holds %+v (%v), want only hello", s, err)
	}
}

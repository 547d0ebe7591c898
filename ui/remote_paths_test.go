package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"time"

	"github.com/chorusai/chorus/ui/prompt"
)

// TestRemotePathsRevealNothing (issue 17, 6): over ssh, a pasted path
// outside the user's folder stays text whether or not the server has such
// a file, and an @path outside it is refused with the same words either
// way — naming the folder, not suggesting @path; a path inside the folder
// still becomes an attachment.
func TestRemotePathsRevealNothing(t *testing.T) {
	env := newTestEnv(t)
	ws := t.TempDir()
	opts := env.options(t)
	opts.Remote, opts.Workspace, opts.OutputDir = "203.0.113.7:50022", ws, filepath.Join(ws, "outputs")
	m0, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(outside, []byte("root:x"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(filepath.Dir(outside), "nonexistent")
	inside := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(inside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	m := m0
	// paste sends a paste to the prompt and waits for its check (which
	// stats pasted paths) to come back, as the program would.
	paste := func(content string) string {
		m.input.Set("")
		_, cmd := m.input.Update(tea.PasteMsg{Content: content})
		for _, msg := range runCmd(cmd, 2*time.Second) {
			if pc, ok := msg.(prompt.PasteChecked); ok {
				m.input.Update(pc)
			}
		}
		return m.input.Value()
	}
	for _, p := range []string{outside, missing} {
		if v := paste(p); v != p {
			t.Errorf("a pasted path outside the folder became %q", v)
		}
	}
	if v := paste(inside); !strings.Contains(v, "@"+inside) {
		t.Errorf("a pasted path inside the folder stayed %q", v)
	}

	var msgs []string
	for _, p := range []string{outside, missing} {
		_, _, err := prompt.ResolveAttachmentsIn("read @"+p, m.ws.expand, m.ws.confine)
		if err == nil {
			t.Fatalf("@%s was accepted", p)
		}
		msgs = append(msgs, strings.ReplaceAll(err.Error(), p, "PATH"))
	}
	if msgs[0] != msgs[1] {
		t.Errorf("an existing and a missing file outside the folder are refused differently:\n%s\n%s", msgs[0], msgs[1])
	}
	if !strings.Contains(msgs[0], ws) || strings.Contains(msgs[0], "--attach") {
		t.Errorf("the refusal should name the folder %s and not suggest @path: %s", ws, msgs[0])
	}
}

// runCmd runs cmd and the commands of its batches, each for at most wait
// (a cursor blink's tick is left behind), and returns their messages.
func runCmd(cmd tea.Cmd, wait time.Duration) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(wait):
		return nil
	}
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runCmd(c, wait)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

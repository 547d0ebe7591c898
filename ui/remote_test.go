package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/prompt"
)

// remoteModel is a chat as `chorus serve --ssh` opens it: a remote user
// confined to a workspace.
func remoteModel(t *testing.T) (*Model, string) {
	t.Helper()
	e := newTestEnv(t)
	ws := t.TempDir()
	opts := e.options(t)
	opts.Remote, opts.Workspace, opts.OutputDir = "203.0.113.7:50022", ws, filepath.Join(ws, "outputs")
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, ws
}

// TestRemoteAudioIsNotPlayedHere: a remote user's sound would play on the
// server, to nobody; Chorus says so and names the file instead.
func TestRemoteAudioIsNotPlayedHere(t *testing.T) {
	m, ws := remoteModel(t)
	wav := filepath.Join(ws, "outputs", "speech.wav")
	m.chat.Add(&chat.Message{Role: chat.RoleAssistant, Text: "Here it is.", Files: []string{wav}, Final: true})
	cmd := m.togglePlay()
	if cmd == nil {
		t.Fatal("no command")
	}
	done, ok := cmd().(playDone)
	if !ok || !errors.Is(done.err, errRemoteAudio) {
		t.Fatalf("playing over ssh: %#v", done)
	}
	m.Update(done)
	if !strings.Contains(m.notice.text, "not on yours (203.0.113.7:50022)") || !strings.Contains(m.notice.text, wav) {
		t.Fatalf("notice %q", m.notice.text)
	}
	if _, ok := m.media.Player(); ok {
		t.Fatal("a remote chat reports an audio player")
	}
	// Nor is a desktop viewer started here, whatever the client says of a
	// display.
	m.opts.Getenv = fixedEnv(map[string]string{"DISPLAY": ":0"})
	if cmd := m.openLastFile(); cmd != nil || !strings.Contains(m.notice.text, "another machine") {
		t.Fatalf("open over ssh: %q", m.notice.text)
	}
}

// TestWorkspaceConfinesFiles: a remote user's attachments, Tab completion,
// exports and recordings stay in their workspace; relative and ~ paths
// start from it.
func TestWorkspaceConfinesFiles(t *testing.T) {
	m, ws := remoteModel(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	inside := filepath.Join(ws, "notes.txt")
	for _, p := range []string{outside, inside} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for typed, want := range map[string]string{"notes.txt": inside, "~/notes.txt": inside, inside: inside} {
		_, files, err := prompt.ResolveAttachmentsIn("read @"+typed, m.ws.expand, m.ws.confine)
		if err != nil || len(files) != 1 || files[0] != want || m.ws.checkAll(files) != nil {
			t.Errorf("@%s: %v %v", typed, files, err)
		}
	}
	for _, typed := range []string{outside, "link.txt", "../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt"} {
		_, files, err := prompt.ResolveAttachmentsIn("read @"+typed, m.ws.expand, m.ws.confine)
		if err == nil {
			err = m.ws.checkAll(files)
		}
		if err == nil || !strings.Contains(err.Error(), "outside your workspace") {
			t.Errorf("@%s was allowed: %v", typed, err)
		}
	}
	if _, err := m.ws.readDir("/"); err == nil {
		t.Error("Tab completion lists the server's root directory")
	}
	if entries, err := m.ws.readDir(m.ws.expand(".")); err != nil || len(entries) == 0 {
		t.Errorf("Tab completion in the workspace: %v %v", entries, err)
	}
	if res := m.conv.Run(testCtx(t), conversation.Request{Request: "hi"}, func(pipeline.Event) {}); res.Err != nil {
		t.Fatal(res.Err)
	}
	if cmd := m.exportTo(filepath.Join(t.TempDir(), "x.md")); cmd != nil || !strings.Contains(m.notice.text, "outside your workspace") {
		t.Errorf("export outside: %q", m.notice.text)
	}
	if m.record("/tmp/elsewhere.json"); m.recording() || !strings.Contains(m.notice.text, "outside your workspace") {
		t.Errorf("record outside: %q", m.notice.text)
	}
}

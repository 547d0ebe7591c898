package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/internal/mcptest"
)

// filesystem starts the real server-filesystem over stdio, allowed the
// folder allowed on its command line.
func filesystem(t *testing.T, allowed string) *mcp.Endpoint {
	t.Helper()
	node, script := mcptest.Filesystem(t)
	e := mcp.New(mcp.Options{Servers: []mcp.Server{{Name: "fs", Command: node, Args: []string{script, allowed}, Trust: true}}})
	t.Cleanup(func() { e.Close() })
	e.Start(context.Background())
	if st := e.Status()[0]; st.State != "running" {
		t.Fatalf("server-filesystem did not start: %+v", st)
	}
	return e
}

// allowedDirs asks the server which folders it keeps to.
func allowedDirs(t *testing.T, e *mcp.Endpoint, req endpoints.Request) string {
	t.Helper()
	req.Task, req.Model = "fs.list_allowed_directories", "fs.list_allowed_directories"
	res, err := e.Infer(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text
}

// TestRootsReplaceTheServersFolders (issue 33): Chorus sends a turn's
// roots before a call, and server-filesystem keeps to them in place of the
// folder on its command line — changed again when the next turn's differ.
func TestRootsReplaceTheServersFolders(t *testing.T) {
	t.Parallel()
	wide := t.TempDir()
	a, b := filepath.Join(wide, "a"), filepath.Join(wide, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e := filesystem(t, wide)
	if got := allowedDirs(t, e, endpoints.Request{}); !strings.Contains(got, wide) {
		t.Fatalf("without roots the server keeps its command line's folder: %q", got)
	}
	for _, roots := range [][]string{{a}, {b}, {a, b}} {
		got := allowedDirs(t, e, endpoints.Request{Roots: roots})
		lines := strings.Fields(strings.TrimPrefix(got, "Allowed directories:"))
		if strings.Join(lines, " ") != strings.Join(roots, " ") {
			t.Errorf("roots %v: the server keeps to %q", roots, got)
		}
	}
	r := e.Reads("fs.read_text_file", "")
	var dirs []string
	for _, d := range r.Dirs {
		dirs = append(dirs, d.Dir)
	}
	if !r.Tool || r.Unknown || !strings.Contains(strings.Join(dirs, " "), wide) {
		t.Errorf("Reads = %+v: want a tool reading from %s", r, wide)
	}
}

// TestChatServerRunsInTheChatsFolder (issue 33): for a confined turn (a
// user over ssh), a path-taking server runs apart for the chat — in its
// folder, that folder in place of the command line's — started on first
// use and stopped with the chat; the host's own instance never runs
// their calls.
func TestChatServerRunsInTheChatsFolder(t *testing.T) {
	t.Parallel()
	host := t.TempDir()
	chat := filepath.Join(t.TempDir(), "users", "u1")
	if err := os.MkdirAll(chat, 0o700); err != nil {
		t.Fatal(err)
	}
	e := filesystem(t, host)
	got := allowedDirs(t, e, endpoints.Request{Workspace: chat, Chat: "c1"})
	if strings.Contains(got, host) || !strings.Contains(got, chat) {
		t.Fatalf("a confined chat's server keeps to %q, want %s", got, chat)
	}
	r := e.Reads("fs.read_text_file", chat)
	if len(r.Dirs) != 1 || r.Dirs[0].Dir != chat {
		t.Errorf("Reads for the chat = %+v, want its folder alone", r.Dirs)
	}
	if got := allowedDirs(t, e, endpoints.Request{}); !strings.Contains(got, host) {
		t.Errorf("the host's own instance changed: %q", got)
	}
	pids := serverPIDs(t, chat)
	if len(pids) == 0 {
		t.Fatal("no server runs in the chat's folder")
	}
	e.CloseChat("c1")
	deadline := time.Now().Add(10 * time.Second)
	for len(serverPIDs(t, chat)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the chat's server still runs after the chat closed: %v", serverPIDs(t, chat))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serverPIDs are the processes whose working folder is dir.
func serverPIDs(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "for p in /proc/[0-9]*; do [ \"$(readlink $p/cwd 2>/dev/null)\" = \""+dir+"\" ] && echo ${p#/proc/}; done; true").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}

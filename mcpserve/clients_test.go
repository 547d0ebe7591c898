package mcpserve_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/mcpserve"
)

// eventually waits up to 10 s for cond.
func eventually(cond func() bool) bool {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// planWithFile calls chorus_plan on cs with a file of size random bytes.
func planWithFile(t *testing.T, cs *sdk.ClientSession, size int) *sdk.CallToolResult {
	t.Helper()
	data := make([]byte, size)
	_, _ = rand.Read(data)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chorus_plan", Arguments: map[string]any{
		"request": "what is in recording.bin?",
		"files":   []any{map[string]any{"name": "recording.bin", "data": base64.StdEncoding.EncodeToString(data)}},
	}})
	if err != nil {
		t.Fatalf("a %d-byte file: %v", size, err)
	}
	return res
}

// TestClientFilesGoWithItsSession: the files a client sent, and those its
// turns made, are on disk while its session lasts and gone — 0 bytes
// left — once the client closes it.
func TestClientFilesGoWithItsSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := serveWith(t, plannerServer(t), controller.Options{}, mcpserve.Options{Dir: dir})
	cs := dial(t, srv, nil)
	if res := planWithFile(t, cs, 200_000); res.IsError {
		t.Fatalf("the call failed: %+v", res.Content[0])
	}
	if n := testkit.BytesUnder(dir); n < 200_000 {
		t.Fatalf("%d bytes under %s while the session is open; the file is not there", n, dir)
	}
	cs.Close()
	if !eventually(func() bool { return testkit.BytesUnder(dir) == 0 }) {
		t.Fatalf("%d bytes of the client's files are left after its session ended", testkit.BytesUnder(dir))
	}
}

// TestRetiredClientFilesGo: a client retired to make room for another
// (MaxClients) takes its files with it; the newer client's stay.
func TestRetiredClientFilesGo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := serveWith(t, plannerServer(t), controller.Options{}, mcpserve.Options{Dir: dir, MaxClients: 1})
	first, second := dial(t, srv, nil), dial(t, srv, nil)
	planWithFile(t, first, 100_000)
	planWithFile(t, second, 30_000)
	if !eventually(func() bool { return testkit.BytesUnder(dir) == 30_000 }) {
		t.Fatalf("%d bytes left: the retired client's 100,000 are still there, or the new one's 30,000 went", testkit.BytesUnder(dir))
	}
}

// TestStaleClientFilesGoAtStart: a start removes the folders a process
// that died left (in the layout of before, and of now), and keeps those of
// a process still serving from the same folder.
func TestStaleClientFilesGoAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ol := plannerServer(t)
	live := serveWith(t, ol, controller.Options{}, mcpserve.Options{Dir: dir})
	planWithFile(t, dial(t, live, nil), 50_000)
	for _, stale := range []string{"20260101-000000-a1b2c3d4e5f6/in-1/photo.png", "20260101-000000-4242-a1b2c3d4e5f6/20260101-000001-aabbccddeeff/out/x.wav"} {
		p := filepath.Join(dir, stale)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 70_000), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	serveWith(t, ol, controller.Options{}, mcpserve.Options{Dir: dir})
	if n := testkit.BytesUnder(dir); n != 50_000 {
		t.Fatalf("%d bytes under %s after a start; want only the live server's client's 50,000", n, dir)
	}
}

// TestClientQuota: a call whose files would take the client's folder past
// its quota is refused, naming serve.mcp_quota, and writes nothing; a new
// session starts empty.
func TestClientQuota(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := serveWith(t, plannerServer(t), controller.Options{}, mcpserve.Options{Dir: dir, Quota: 250_000})
	cs := dial(t, srv, nil)
	if res := planWithFile(t, cs, 150_000); res.IsError {
		t.Fatalf("a call within the quota: %+v", res.Content[0])
	}
	res := planWithFile(t, cs, 150_000)
	if !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "serve.mcp_quota") {
		t.Fatalf("a call past the quota: %+v", res.Content[0])
	}
	if n := testkit.BytesUnder(dir); n > 250_000 {
		t.Fatalf("%d bytes under %s: the refused call wrote its file", n, dir)
	}
	if res := planWithFile(t, dial(t, srv, nil), 150_000); res.IsError {
		t.Fatalf("a new session: %+v", res.Content[0])
	}
}

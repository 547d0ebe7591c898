package mcp_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/internal/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.FakeMain()
	os.Exit(m.Run())
}

// fake starts this test binary as the misbehaving fake server.
func fake(t *testing.T, mode string, env map[string]string, o ...func(*mcp.Options)) *mcp.Endpoint {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, mcptest.Env(mode))
	opts := mcp.Options{Servers: []mcp.Server{{Name: "fake", Command: os.Args[0], Env: env}}, StartTimeout: 5 * time.Second}
	for _, f := range o {
		f(&opts)
	}
	e := mcp.New(opts)
	t.Cleanup(func() { e.Close() })
	e.Start(context.Background())
	return e
}

func call(e *mcp.Endpoint, ctx context.Context, tool string, args map[string]string) (endpoints.Result, error) {
	if args == nil {
		args = map[string]string{}
	}
	return e.Infer(ctx, endpoints.Request{Task: "fake." + tool, Model: "fake." + tool, Args: args})
}

// TestServerDoesNotStart: a server that exits at once, a program that is
// not installed and one that never answers the handshake each say so,
// with the fix, in the status and in Check.
func TestServerDoesNotStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		e    func() *mcp.Endpoint
		want []string
	}{
		{"exits", func() *mcp.Endpoint { return fake(t, "nostart", nil) }, []string{"did not start", "cannot open the database: permission denied"}},
		{"mute", func() *mcp.Endpoint {
			return fake(t, "mute", nil, func(o *mcp.Options) { o.StartTimeout = time.Second })
		}, []string{"did not answer the MCP handshake on its standard output within 1s"}},
		{"missing", func() *mcp.Endpoint {
			e := mcp.New(mcp.Options{Servers: []mcp.Server{{Name: "fake", Command: "no-such-mcp-server-program"}}})
			e.Start(context.Background())
			return e
		}, []string{"no-such-mcp-server-program is not installed or not on PATH", "fix mcp[0].command"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e()
			st := e.Status()[0]
			if st.State != "failed" {
				t.Fatalf("state %+v", st)
			}
			for _, w := range tc.want {
				if !strings.Contains(st.Error, w) {
					t.Errorf("status error %q lacks %q", st.Error, w)
				}
			}
			if err := e.Check(context.Background(), "fake.echo", "fake.echo"); err == nil || err.Error() != st.Error {
				t.Errorf("check: %v", err)
			}
			if len(e.Skills()) != 0 {
				t.Errorf("a failed server has skills")
			}
		})
	}
}

// TestServerFailuresEndTheCallWithTheirCause: a crash mid-call, output
// that is not JSON-RPC and a 50 MB message each end the call with that
// cause; the server is started again for the next call.
func TestServerFailuresEndTheCallWithTheirCause(t *testing.T) {
	t.Parallel()
	e := fake(t, "serve", nil)
	for _, tc := range []struct {
		tool string
		args map[string]string
		want string
	}{
		{"crash", nil, "the MCP server fake stopped during the call to fake.crash: it exited (exit status 3); its last words: fake: fatal error: segmentation fault in the frobnicator"},
		{"garbage", nil, `it wrote something that is not MCP (JSON-RPC) on its standard output: "Traceback (most recent call last): KeyError 'x'"`},
		{"huge", nil, "it sent a message over 33.6 MB (the limit for one message) — the call was stopped"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := call(e, ctx, tc.tool, tc.args)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, endpoints.ErrUnavailable) {
			t.Errorf("%s: %v, want %q", tc.tool, err, tc.want)
		}
		// Started again for the next call.
		res, err := call(e, context.Background(), "echo", map[string]string{"text": "again"})
		if err != nil || !strings.Contains(res.Text, "again") {
			t.Fatalf("after %s: %q %v", tc.tool, res.Text, err)
		}
	}
}

// TestHangIsBoundedAndCancelled: a tool that never answers ends with the
// task's deadline; a cancelled call reaches the server as
// notifications/cancelled.
func TestHangIsBoundedAndCancelled(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "cancelled")
	e := fake(t, "serve", map[string]string{mcptest.CancelledEnv: marker})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	start := time.Now()
	_, err := call(e, ctx, "hang", nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Fatalf("hang: %v after %s", err, time.Since(start))
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if _, err := call(e, ctx, "wait", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, _ := os.ReadFile(marker); string(b) == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never learnt that the call was cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestResultContents: files come back sniffed — an embedded image and a
// linked one (read with resources/read) kept as PNGs, a text resource as
// text, a binary one named but not kept, a web link left as a link — and
// structured content as data; an "image/png" that is a shell script is
// refused.
func TestResultContents(t *testing.T) {
	t.Parallel()
	e := fake(t, "serve", nil)
	res, err := call(e, context.Background(), "picture", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blobs) != 2 || res.Blobs[0].MIME != "image/png" || res.Blobs[1].MIME != "image/png" {
		t.Fatalf("blobs %+v", res.Blobs)
	}
	for _, want := range []string{"resource fake://notes.txt (text/plain):\nsome notes", "(resource fake://archive.gz, application/gzip, 8 B, was not kept: Chorus keeps images, audio and video)",
		"link: a web page https://example.com/page"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, res.Text)
		}
	}
	if string(res.Data) != `{"height":4,"width":6}` {
		t.Errorf("data %s", res.Data)
	}
	res, err = call(e, context.Background(), "liar", nil)
	if err != nil || len(res.Blobs) != 0 || !strings.Contains(res.Text, "an image declared image/png was not kept: its bytes are text") {
		t.Fatalf("liar: %+v %v", res, err)
	}
}

// TestEnvironmentHoldsOnlyWhatEnvNames: the server sees a variable of
// Chorus's only when env: passes it on.
func TestEnvironmentHoldsOnlyWhatEnvNames(t *testing.T) {
	t.Setenv("HF_TOKEN", "hf_mine")
	e := fake(t, "serve", map[string]string{"SECRET_FOR_TOOL": "given"})
	res, err := call(e, context.Background(), "whoami", nil)
	if err != nil || res.Text != "SECRET_FOR_TOOL=given HF_TOKEN=" {
		t.Fatalf("%q %v", res.Text, err)
	}
	if why := e.NeedsApproval("fake.delete-everything", "fake.delete-everything"); !strings.Contains(why, "destructive") {
		t.Fatalf("a destructive tool: %q", why)
	}
}

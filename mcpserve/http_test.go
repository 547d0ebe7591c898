package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/mcpserve"
)

// serveHTTP serves Chorus over streamable HTTP, as chorus mcp serve --http
// does, and returns its /mcp URL.
func serveHTTP(t *testing.T, o mcpserve.HTTPOptions) string {
	t.Helper()
	hs := httptest.NewServer(serve(t, plannerServer(t), controller.Options{}).HTTPHandler(o))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// dialHTTP connects an SDK client to url with hc.
func dialHTTP(t *testing.T, url string, hc *http.Client) (*sdk.ClientSession, error) {
	t.Helper()
	cl := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := cl.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestHTTPTakesFilesUpToTheDocumentedSize: over --http a call carries a
// file as large as the server takes (MaxFile: 50 MiB, as docs/mcp.md
// promises, unless configured) — base64 in the request body, where the
// SDK's default 4 MiB body refused 3 MB with 413. Over the wire: 3 MB with
// the defaults, and exactly MaxFile with MaxFile set to 6 MiB; by
// MaxBody, a call with a file of the default MaxFile. (cli's
// TestMCPServeBigCallsMemory sends 50 MB files to the built binary.)
func TestHTTPTakesFilesUpToTheDocumentedSize(t *testing.T) {
	t.Parallel()
	call := func(t *testing.T, url string, size int) {
		t.Helper()
		cs, err := dialHTTP(t, url, &http.Client{})
		if err != nil {
			t.Fatal(err)
		}
		if res := planWithFile(t, cs, size); res.IsError {
			t.Fatalf("a %d-byte file: %+v", size, res.Content[0])
		}
	}
	ol := plannerServer(t)
	// The body of a call with a file of the default MaxFile, as a client
	// sends it.
	srv := serve(t, ol, controller.Options{})
	head := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chorus_plan","arguments":{"request":"what is in recording.bin?","files":[{"name":"recording.bin","mimeType":"application/octet-stream","data":"`
	tail := `"}]}}}`
	if body := int64(len(head) + base64.StdEncoding.EncodedLen(50<<20) + len(tail)); body > srv.MaxBody() {
		t.Errorf("a call with a 50 MiB file is %d bytes, over MaxBody's %d", body, srv.MaxBody())
	}

	call(t, serveHTTP(t, mcpserve.HTTPOptions{}), 3<<20)
	const maxFile = 6 << 20
	hs := httptest.NewServer(serveWith(t, ol, controller.Options{}, mcpserve.Options{MaxFile: maxFile}).HTTPHandler(mcpserve.HTTPOptions{}))
	t.Cleanup(hs.Close)
	call(t, hs.URL+"/mcp", maxFile)
}

// TestHTTPBearerToken: with a token, a request without it or with another
// gets 401 and a Bearer challenge, one with it is served; the token is
// never written to the log.
func TestHTTPBearerToken(t *testing.T) {
	const token = "s3cret-token-value"
	var logged bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	url := serveHTTP(t, mcpserve.HTTPOptions{Token: token, Logger: log})
	for name, auth := range map[string]string{"none": "", "wrong": "Bearer " + token + "x", "basic": "Basic " + token, "prefix": "Bearer " + token[:5]} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: HTTP %d, challenge %q", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if _, err := dialHTTP(t, url, &http.Client{}); err == nil {
		t.Fatal("a client without the token connected")
	}
	cs, err := dialHTTP(t, url, &http.Client{Transport: bearer{token}})
	if err != nil {
		t.Fatalf("a client with the token: %v", err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "no valid bearer token") || strings.Contains(logged.String(), token[:5]) {
		t.Fatalf("the log does not record the refusals, or holds the token:\n%s", logged.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

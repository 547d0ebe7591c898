package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/internal/mcptest"
)

func httpEndpoint(t *testing.T, s mcp.Server) *mcp.Endpoint {
	t.Helper()
	e := mcp.New(mcp.Options{Servers: []mcp.Server{s}})
	t.Cleanup(func() { e.Close() })
	e.Start(context.Background())
	return e
}

// TestEverythingOverHTTP: the reference server's streamable HTTP
// transport, and its older HTTP+SSE one reached through the fallback
// (no transport configured) or by name.
func TestEverythingOverHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, transport, configured string }{
		{"streamable", "streamableHttp", ""},
		{"sse-fallback", "sse", ""},
		{"sse", "sse", "sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := mcptest.EverythingHTTP(t, tc.transport)
			e := httpEndpoint(t, mcp.Server{Name: "everything", URL: url, Transport: tc.configured})
			if st := e.Status()[0]; st.State != "running" || len(st.Tools) < 10 {
				t.Fatalf("status %+v", st)
			}
			res, err := e.Infer(context.Background(), endpoints.Request{Task: "everything.get-sum", Model: "everything.get-sum", Args: map[string]string{"a": "20", "b": "22"}})
			if err != nil || res.Text != "The sum of 20 and 22 is 42." {
				t.Fatalf("%q %v", res.Text, err)
			}
			if got := e.Remote("", "everything.get-sum"); got != "" {
				t.Fatalf("a loopback server counts as remote: %s", got)
			}
		})
	}
}

// goServer serves one read-only echo tool over streamable HTTP behind
// handler wrap, which sees every request first.
func goServer(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "go", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes.", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(wrap(h))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestHTTPKeyAndHeaders: the key goes as a bearer token and the
// configured headers with every request; a refused key says which
// setting to fix.
func TestHTTPKeyAndHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	url := goServer(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Team"))
			mu.Unlock()
			if r.Header.Get("Authorization") != "Bearer good" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"error":"invalid_token","error_description":"the token expired"}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	e := httpEndpoint(t, mcp.Server{Name: "remote", URL: url, Key: "good", KeyFrom: "REMOTE_KEY", Headers: map[string]string{"X-Team": "search"}})
	res, err := e.Infer(context.Background(), endpoints.Request{Task: "remote.echo", Model: "remote.echo", Args: map[string]string{"text": "hi"}})
	if err != nil || res.Text != `{"text":"hi"}` {
		t.Fatalf("%q %v", res.Text, err)
	}
	mu.Lock()
	for _, s := range seen {
		if s != "Bearer good|search" {
			t.Errorf("a request carried %q", s)
		}
	}
	mu.Unlock()

	bad := httpEndpoint(t, mcp.Server{Name: "remote", URL: url, Key: "old", KeyFrom: "REMOTE_KEY"})
	st := bad.Status()[0]
	if st.State != "failed" || !strings.Contains(st.Error, "refused the request (HTTP 401: the token expired) — check the key in REMOTE_KEY") {
		t.Fatalf("status %+v", st)
	}
	err = bad.Check(context.Background(), "remote.echo", "remote.echo")
	if !errors.Is(err, endpoints.ErrUnauthorized) {
		t.Fatalf("check %v", err)
	}
	none := httpEndpoint(t, mcp.Server{Name: "huggingface", URL: url, KeyFrom: "HF_TOKEN (or huggingface.token)"})
	if st := none.Status()[0]; !strings.Contains(st.Error, "— set HF_TOKEN (or huggingface.token)") {
		t.Fatalf("no key: %+v", st)
	}
}

// TestHTTPRedirectElsewhereIsRefused: a redirect to another origin is not
// followed with the server's key.
func TestHTTPRedirectElsewhereIsRefused(t *testing.T) {
	t.Parallel()
	var leaked sync.Once
	got := ""
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Do(func() { got = r.Header.Get("X-Api-Key") })
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	e := httpEndpoint(t, mcp.Server{Name: "r", URL: redirector.URL + "/mcp", Headers: map[string]string{"X-Api-Key": "secret"}, Transport: "streamable"})
	if st := e.Status()[0]; st.State != "failed" || !strings.Contains(st.Error, "another origin") {
		t.Fatalf("status %+v", st)
	}
	if got != "" {
		t.Fatalf("the key went to %s", other.URL)
	}
}

// TestHTTPMessageBound: a JSON answer over the bound ends the call with
// that cause.
func TestHTTPMessageBound(t *testing.T) {
	t.Parallel()
	url := goServer(t, func(h http.Handler) http.Handler { return h })
	e := mcp.New(mcp.Options{Servers: []mcp.Server{{Name: "go", URL: url}}, MaxMessage: 64 << 10})
	t.Cleanup(func() { e.Close() })
	e.Start(context.Background())
	_, err := e.Infer(context.Background(), endpoints.Request{Task: "go.echo", Model: "go.echo", Args: map[string]string{"text": strings.Repeat("y", 100<<10)}})
	if err == nil || !strings.Contains(err.Error(), "the limit for one message") {
		t.Fatalf("%v", err)
	}
}

// TestMappedToolGetsTheTaskFileAsData: a Gradio-like tool mapped onto
// image-editing gets the task's image as a data URL (never its path) in
// its image argument and the instruction in its prompt; its image result
// comes back as a file.
func TestMappedToolGetsTheTaskFileAsData(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got map[string]any
	srv := sdk.NewServer(&sdk.Implementation{Name: "space", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "edit_infer", Description: "Edits an image by an instruction.",
		InputSchema: map[string]any{"type": "object", "required": []string{"input_image", "prompt"}, "properties": map[string]any{
			"input_image": map[string]any{"type": "string", "description": "a http or https url to a file"},
			"prompt":      map[string]any{"type": "string"}, "seed": map[string]any{"type": "integer", "default": 0}}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			mu.Lock()
			_ = json.Unmarshal(req.Params.Arguments, &got)
			mu.Unlock()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: mcptest.PNG(5, 5)}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	e := httpEndpoint(t, mcp.Server{Name: "space", URL: ts.URL, Tasks: map[string][]string{"image-editing": {"edit_infer"}}})
	offers, _ := e.Discover(context.Background(), "image-editing")
	if len(offers) != 1 || offers[0].ID != "space.edit_infer" || !offers[0].Configured {
		t.Fatalf("offers %+v", offers)
	}
	if err := e.Check(context.Background(), "image-editing", "space.edit_infer"); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(context.Background(), "text-to-image", "space.edit_infer"); err == nil {
		t.Fatal("a tool not mapped onto a task passes its check")
	}
	img := filepath.Join(t.TempDir(), "in.png")
	if err := os.WriteFile(img, mcptest.PNG(8, 8), 0o600); err != nil {
		t.Fatal(err)
	}
	req := endpointstest.Request(t, "image-editing", "space.edit_infer", map[string]string{"image": img, "text": "make it winter"})
	res, err := e.Infer(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blobs) != 1 || res.Blobs[0].MIME != "image/png" {
		t.Fatalf("blobs %+v", res.Blobs)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["prompt"] != "make it winter" || got["input_image"] != "data:image/png;base64,"+mcptest.PNGBase64(8, 8) {
		t.Fatalf("arguments %v", got)
	}
	if strings.Contains(fmt.Sprint(got), img) {
		t.Fatal("the file's path reached the server")
	}
}

// catcher records every request it gets: a server the configured one
// tries to send Chorus to.
type catcher struct {
	mu   sync.Mutex
	reqs []string
}

func (c *catcher) start(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.reqs = append(c.reqs, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" team="+r.Header.Get("X-Team")+" body="+string(b))
		c.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func (c *catcher) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

// TestSSEEndpointElsewhereIsRefused: an HTTP+SSE server names, in its
// endpoint event, where the client posts its messages. One that names
// another origin (another port of this machine, another host) gets
// nothing there — not the key, not the configured headers, not a
// message — and the server fails to start, saying why.
func TestSSEEndpointElsewhereIsRefused(t *testing.T) {
	t.Parallel()
	for _, spelling := range []string{"127.0.0.1", "localhost."} {
		var c catcher
		other := c.start(t)
		endpoint := strings.Replace(other, "127.0.0.1", spelling, 1) + "/steal"
		sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", endpoint)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		t.Cleanup(sse.Close)
		e := httpEndpoint(t, mcp.Server{Name: "legacy", URL: sse.URL + "/sse", Transport: "sse", Key: "mcp-secret", Headers: map[string]string{"X-Team": "team-secret"}})
		if got := c.got(); len(got) > 0 {
			t.Fatalf("endpoint %s: the server's endpoint event sent Chorus to another origin: %q", endpoint, got)
		}
		if st := e.Status()[0]; st.State != "failed" || !strings.Contains(st.Error, "another origin") {
			t.Fatalf("endpoint %s: status %+v", endpoint, st)
		}
	}
}

// TestHTTPPostRedirectIsRefused: a redirect of a POST — even on the
// server's own origin — is not followed, so the message (the tool's
// arguments: the user's files as data) is never sent again where the
// server points; the server fails to start and says so.
func TestHTTPPostRedirectIsRefused(t *testing.T) {
	t.Parallel()
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var mu sync.Mutex
		var posts []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			posts = append(posts, r.Method+" "+r.URL.Path)
			mu.Unlock()
			if r.URL.Path == "/mcp" {
				http.Redirect(w, r, "/other", code)
				return
			}
			w.WriteHeader(http.StatusNotFound)
		}))
		t.Cleanup(srv.Close)
		e := httpEndpoint(t, mcp.Server{Name: "r", URL: srv.URL + "/mcp", Transport: "streamable", Key: "mcp-secret"})
		mu.Lock()
		got := slices.Clone(posts)
		mu.Unlock()
		if slices.Contains(got, "POST /other") {
			t.Errorf("HTTP %d: a POST was sent again where the redirect pointed: %q", code, got)
		}
		if st := e.Status()[0]; st.State != "failed" || !strings.Contains(st.Error, "redirect") {
			t.Errorf("HTTP %d: status %+v", code, st)
		}
	}
}

// TestMappedToolGetsRequiredDefaults: a required argument of a mapped
// tool that the task cannot fill but whose schema gives a default is sent
// with that default (a server that checks required arguments refuses a
// call without it).
func TestMappedToolGetsRequiredDefaults(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got map[string]any
	srv := sdk.NewServer(&sdk.Implementation{Name: "space", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "gen", Description: "Generates an image from a prompt.",
		InputSchema: map[string]any{"type": "object", "required": []string{"prompt", "steps", "size"}, "properties": map[string]any{
			"prompt": map[string]any{"type": "string"}, "steps": map[string]any{"type": "integer", "default": 4},
			"size": map[string]any{"type": "string", "enum": []string{"512", "1024"}, "default": "1024"}}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			mu.Lock()
			_ = json.Unmarshal(req.Params.Arguments, &got)
			mu.Unlock()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: mcptest.PNG(5, 5)}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	e := httpEndpoint(t, mcp.Server{Name: "space", URL: ts.URL, Tasks: map[string][]string{"text-to-image": {"gen"}}})
	if _, err := e.Infer(context.Background(), endpointstest.Request(t, "text-to-image", "space.gen", map[string]string{"text": "a fox"})); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["prompt"] != "a fox" || got["steps"] != float64(4) || got["size"] != "1024" {
		t.Fatalf("arguments %v", got)
	}
}

// TestHTTPUnreachableNamesTheFix: a server on this machine that does not
// answer is to be started; one elsewhere (Hugging Face's) cannot be, and
// the fix is the network or the URL.
func TestHTTPUnreachableNamesTheFix(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	local := httpEndpoint(t, mcp.Server{Name: "mine", URL: closed.URL + "/mcp", Transport: "streamable"})
	if st := local.Status()[0]; st.State != "failed" || !strings.Contains(st.Error, "start it, or fix mcp[0].url") {
		t.Errorf("a local server: %+v", st)
	}
	remote := httpEndpoint(t, mcp.Server{Name: "far", URL: "https://mcp.example.invalid/mcp", Transport: "streamable"})
	if st := remote.Status()[0]; st.State != "failed" || strings.Contains(st.Error, "start it") || !strings.Contains(st.Error, "check the network") {
		t.Errorf("a remote server: %+v", st)
	}
}

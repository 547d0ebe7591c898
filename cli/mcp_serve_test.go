package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/mcptest"
)

var attachedImage = regexp.MustCompile(`(?m)^- (/\S+) \(image\)`)

// resizePlanner plans image-resize to half of the first attached image.
func resizePlanner(req *api.ChatRequest) fakeollama.Reply {
	last := req.Messages[len(req.Messages)-1].Content
	switch stageOf(req) {
	case "plan":
		path := ""
		if m := attachedImage.FindStringSubmatch(last); m != nil {
			path = m[1]
		}
		return fakeollama.Reply{Content: fmt.Sprintf(`{"tasks":[{"task":"image-resize","id":1,"dep":[],"args":{"image":%q,"text":"50%%"}}]}`, path)}
	}
	return fakeollama.Reply{Content: "Here is the smaller picture."}
}

// tsClient is the official TypeScript SDK's client, as an MCP host would
// run it: Client + StdioClientTransport starting chorus mcp serve, then
// tools/list and tools/call chorus with a PNG as data.
const tsClient = `
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
(async () => {
  const [command, ...args] = JSON.parse(process.argv[2]);
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  const client = new Client({ name: "chorus-ts-test", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const progress = [];
  const data = require("fs").readFileSync(process.argv[3]).toString("base64");
  const result = await client.callTool({ name: "chorus", arguments: { request: "make photo.png half as big",
    files: [{ name: "photo.png", mimeType: "image/png", data }] } }, undefined, { onprogress: (p) => progress.push(p) });
  console.log(JSON.stringify({ server: client.getServerVersion(), tools, result, progress }));
  await client.close();
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestMCPServeWithRealClients: the built chorus binary serves MCP to the
// official TypeScript SDK's client over stdio and to the Go SDK's client
// over streamable HTTP.
func TestMCPServeWithRealClients(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	bin := chorusBinary(t)
	e := newCLIEnv(t, resizePlanner)
	pic := filepath.Join(t.TempDir(), "photo.png")
	if err := os.WriteFile(pic, mcptest.PNG(40, 20), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("typescript-sdk-stdio", func(t *testing.T) {
		dir := mcptest.SDK(t)
		script := filepath.Join(t.TempDir(), "client.cjs")
		if err := os.WriteFile(script, []byte(tsClient), 0o600); err != nil {
			t.Fatal(err)
		}
		argv, _ := json.Marshal([]string{bin, "mcp", "serve"})
		cmd := exec.Command("node", script, string(argv), pic)
		cmd.Env = append(e.childEnv(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
		}
		var got struct {
			Server struct{ Name, Version string }
			Tools  []struct {
				Name        string
				InputSchema map[string]any
			}
			Result struct {
				IsError bool
				Content []struct{ Type, Text, Data, MimeType string }
			}
			Progress []struct {
				Progress, Total float64
				Message         string
			}
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if got.Server.Name != "chorus" || len(got.Tools) != 2 || got.Tools[0].Name != "chorus" || got.Tools[1].Name != "chorus_plan" {
			t.Fatalf("server %+v tools %+v", got.Server, got.Tools)
		}
		r := got.Result
		if r.IsError || len(r.Content) != 2 || !strings.Contains(r.Content[0].Text, "Here is the smaller picture.") || r.Content[1].Type != "image" || r.Content[1].MimeType != "image/png" {
			t.Fatalf("result %+v\nstderr %s", r, stderr.String())
		}
		b, _ := base64.StdEncoding.DecodeString(r.Content[1].Data)
		if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != 20 {
			t.Fatalf("image: %v", err)
		}
		// The TypeScript SDK hands a notification to its handler on a
		// microtask but a response at once (shared/protocol.js
		// _onnotification): notifications read in the same chunk as the
		// result come after it and are dropped as "unknown token". So the
		// stages seen are a prefix of those sent, in order; mcpserve's own
		// test (the Go SDK's client) checks all four.
		if len(got.Progress) == 0 || got.Progress[0].Message != "planning" || got.Progress[0].Total != 4 {
			t.Fatalf("progress %+v", got.Progress)
		}
		for i := 1; i < len(got.Progress); i++ {
			if got.Progress[i].Progress <= got.Progress[i-1].Progress {
				t.Fatalf("progress does not increase: %+v", got.Progress)
			}
		}
	})

	t.Run("go-sdk-http", func(t *testing.T) {
		url, said := e.serveHTTP(bin)
		if !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("a bare :0 must listen on loopback; got %q", url)
		}
		if !strings.Contains(said, "no token: every user of this machine can reach 127.0.0.1") {
			t.Fatalf("the start does not say who can reach it: %q", said)
		}
		// A page in a browser reaching the server by another name (DNS
		// rebinding) is refused.
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		req.Host = "evil.example.com"
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a foreign Host header: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		// A page on another site, which the browser says it is, is refused
		// too (cross-origin protection).
		req, _ = http.NewRequest("POST", url, strings.NewReader(`{}`))
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.example.com")
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a cross-site request: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cl := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil)
		cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "chorus", Arguments: map[string]any{"request": "make photo.png half as big",
			"files": []any{map[string]any{"name": "photo.png", "data": base64.StdEncoding.EncodeToString(mcptest.PNG(40, 20))}}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || len(res.Content) != 2 {
			t.Fatalf("result %+v", res.Content)
		}
		if img, ok := res.Content[1].(*sdk.ImageContent); !ok || img.MIMEType != "image/png" {
			t.Fatalf("content %#v", res.Content[1])
		}
	})

	t.Run("go-sdk-http-token", func(t *testing.T) {
		const token = "tok-5b1e9a"
		e.env["CHORUS_TEST_MCP_TOKEN"] = token
		url, said := e.serveHTTP(bin, "--token-env", "CHORUS_TEST_MCP_TOKEN")
		if !strings.Contains(said, "requests must carry the bearer token from CHORUS_TEST_MCP_TOKEN") || strings.Contains(said, token) {
			t.Fatalf("the start says %q", said)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cl := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil)
		if cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil); err == nil {
			cs.Close()
			t.Fatal("a client without the token connected")
		}
		cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerToken(token)}}, nil)
		if err != nil {
			t.Fatalf("with the token: %v", err)
		}
		defer cs.Close()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if log, _ := os.ReadFile(filepath.Join(e.env.StateDir(), "chorus.log")); strings.Contains(string(log), token) {
			t.Fatal("the token is in the log")
		}
	})
}

// serveHTTP starts `chorus mcp serve --http :0` with args on e's
// environment and returns its URL and what it said when it started.
func (e *cliEnv) serveHTTP(bin string, args ...string) (url, said string) {
	t := e.t
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp", "serve", "--http", ":0"}, args...)...)
	cmd.Env = e.childEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := regexp.MustCompile(`serving MCP on (http://\S+/mcp)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if sc.Scan() { // the line on who may reach it
		lines = append(lines, sc.Text())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return url, strings.Join(lines, "\n")
}

// bearerToken sends its token with every request.
type bearerToken string

func (b bearerToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

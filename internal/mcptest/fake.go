package mcptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FakeEnv, set in a test binary's environment, makes FakeMain serve a
// misbehaving MCP server on standard input and output instead of running
// the tests: "serve" (tools that crash, hang, flood or lie), "nostart"
// (exits at once with a message on standard error), "mute" (never
// answers the handshake).
const FakeEnv = "CHORUS_MCP_FAKE"

// BigEnv sets the size in bytes of the text the fake's "big" tool
// returns (default 30,000,000): a tool that answers with a whole page, a
// log, a file's contents.
const BigEnv = "CHORUS_MCP_FAKE_BIG"

// CancelledEnv names a file the fake's "wait" tool writes "cancelled" to
// when the client cancels the call (notifications/cancelled).
const CancelledEnv = "CHORUS_MCP_FAKE_CANCELLED"

// NoExitSleep is the GORACE setting a fake needs in its environment: a
// test binary built with -race sleeps a second as it exits 0 (so that late
// races are reported), and every turn that stopped the fake waited that
// second — about a second of every MCP test. The fake's own races are
// still reported as they happen.
const NoExitSleep = "atexit_sleep_ms=0"

// Env is the environment of a fake server in mode ("serve", "nostart",
// "mute"): FakeEnv, and GORACE without the sleep at exit.
func Env(mode string) map[string]string {
	return map[string]string{FakeEnv: mode, "GORACE": NoExitSleep}
}

// EnvYAML is Env as a YAML flow mapping, for a configuration's `env:`,
// with extra entries ("KEY: value") after it.
func EnvYAML(mode string, extra ...string) string {
	return "{" + strings.Join(append([]string{FakeEnv + ": " + mode, "GORACE: " + NoExitSleep}, extra...), ", ") + "}"
}

// FakeMain serves the fake when FakeEnv is set, and exits; call it first
// in TestMain. A test then starts the fake as a stdio server with its
// own binary: command os.Args[0], env Env("serve").
func FakeMain() {
	mode := os.Getenv(FakeEnv)
	if mode == "" {
		return
	}
	switch mode {
	case "nostart":
		fmt.Fprintln(os.Stderr, "fake: cannot open the database: permission denied")
		os.Exit(1)
	case "mute":
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	obj := func(props map[string]any, req ...string) map[string]any {
		if props == nil {
			props = map[string]any{}
		}
		if req == nil {
			req = []string{}
		}
		return map[string]any{"type": "object", "properties": props, "required": req}
	}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	add := func(name, desc string, schema map[string]any, h sdk.ToolHandler) {
		srv.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: schema, Annotations: ro}, h)
	}
	add("echo", "Echoes the text.", obj(map[string]any{"text": map[string]any{"type": "string"}}, "text"),
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("echo: " + string(req.Params.Arguments)), nil
		})
	add("crash", "Crashes the server.", obj(nil), func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "fake: fatal error: segmentation fault in the frobnicator")
		os.Exit(3)
		return nil, nil
	})
	add("garbage", "Writes what is not JSON-RPC.", obj(nil), func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		os.Stdout.WriteString("Traceback (most recent call last): KeyError 'x'\n")
		<-ctx.Done()
		return nil, ctx.Err()
	})
	add("huge", "Sends a 50 MB message.", obj(nil), func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		// Written straight to standard output: the SDK takes seconds to
		// encode 50 MB, and one message over the bound is what counts.
		os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 50<<20) + "\"}}\n")
		<-ctx.Done()
		return nil, ctx.Err()
	})
	add("big", "Returns a long text.", obj(nil), func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		n, err := strconv.Atoi(os.Getenv(BigEnv))
		if err != nil || n <= 0 {
			n = 30_000_000
		}
		line := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.\n"
		return text(strings.Repeat(line, n/len(line)+1)[:n]), nil
	})
	add("hang", "Never answers.", obj(nil), func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		select {}
	})
	add("wait", "Waits until cancelled.", obj(nil), func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done()
		if p := os.Getenv(CancelledEnv); p != "" {
			_ = os.WriteFile(p, []byte("cancelled"), 0o600)
		}
		return nil, ctx.Err()
	})
	add("liar", "Returns a shell script it calls a PNG image.", obj(nil), func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: []byte("#!/bin/sh\nrm -rf ~\n")}}}, nil
	})
	add("picture", "Returns a picture as an embedded resource and a linked one.", obj(nil), func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "fake://embedded.png", MIMEType: "image/png", Blob: PNG(6, 4)}},
			&sdk.ResourceLink{URI: "fake://linked.png", Name: "linked", MIMEType: "image/png"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "fake://notes.txt", MIMEType: "text/plain", Text: "some notes"}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "fake://archive.gz", MIMEType: "application/gzip", Blob: []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0}}},
			&sdk.ResourceLink{URI: "https://example.com/page", Name: "a web page"},
		}, StructuredContent: map[string]any{"width": 6, "height": 4}}, nil
	})
	add("whoami", "Reports the server's environment variable SECRET_FOR_TOOL.", obj(nil), func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("SECRET_FOR_TOOL=" + os.Getenv("SECRET_FOR_TOOL") + " HF_TOKEN=" + os.Getenv("HF_TOKEN")), nil
	})
	srv.AddTool(&sdk.Tool{Name: "delete-everything", Description: "Deletes everything.", InputSchema: obj(nil),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: boolPtr(true)}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("deleted"), nil })
	srv.AddResource(&sdk.Resource{URI: "fake://linked.png", Name: "linked", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "fake://linked.png", MIMEType: "image/png", Blob: PNG(3, 3)}}}, nil
		})
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func boolPtr(b bool) *bool { return &b }

// PNG is a w×h PNG image.
func PNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// PNGBase64 is PNG(w, h) in base64.
func PNGBase64(w, h int) string { return base64.StdEncoding.EncodeToString(PNG(w, h)) }

// Package mcpserve makes Chorus an MCP server: `chorus mcp serve` over
// stdio, or over streamable HTTP with --http. Two tools: chorus, which
// runs a request through the four stages and returns the answer with the
// files it made (images and audio as content, the rest as links), and
// chorus_plan, which only plans. Each client session is a chat of the
// conversation service, with its own workspace directory: a call's files
// arrive as embedded data and are written there, and the turn may read
// nothing outside it — not a path its request names, not the files of
// another client.
package mcpserve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// Options configure the server.
type Options struct {
	// Service runs the turns; each client session gets a chat of it.
	Service *conversation.Service
	// Constraints are the standing constraints every chat starts with.
	Constraints pipeline.Constraints
	// Dir holds one workspace per client session (its files and
	// outputs); it is created. Required.
	Dir string
	// AllowTools are the MCP tools (of Chorus's own mcp: servers) that
	// may run though not annotated read-only: nobody is there to ask.
	AllowTools []string
	// MaxFile bounds one file a client sends (decoded); default 50 MiB.
	MaxFile int64
	// MaxInline bounds a generated image or audio file returned as
	// content; bigger ones, and video, are returned as resource links.
	// Default 8 MiB.
	MaxInline int64
	// MaxClients bounds the client sessions kept (their chats and
	// folders); one more retires the least recently used idle one.
	// Default 64.
	MaxClients int
	// Quota bounds the bytes one client session's folder may hold — the
	// files its calls sent, the files its turns made; a call that would
	// pass it is refused. Default 512 MB (serve.mcp_quota).
	Quota int64
	// MaxBigCalls bounds the HTTP calls whose body is over BigBody in
	// flight at once (default 2, serve.mcp_big_calls); the others wait up
	// to BigWait (default 30s, serve.mcp_big_wait), then get 503. BigBody
	// defaults to 8 MB (serve.mcp_big_body). A body of unknown length
	// counts as big. Each such call holds its body, and what decoding it
	// takes, in memory.
	MaxBigCalls int
	BigBody     int64
	BigWait     time.Duration
	// Version is Chorus's version, told to clients.
	Version string
	// Logger records calls and their outcome (never requests or files);
	// nil discards.
	Logger *slog.Logger
}

// Server is Chorus as an MCP server.
type Server struct {
	opts Options
	sdk  *sdk.Server

	// root is this process's folder under Dir, holding one folder per
	// client session; unlock releases the lock that tells other
	// processes it is in use (clients.go).
	root   string
	unlock func()
	// big holds a token per big HTTP call in flight (http.go).
	big chan struct{}

	mu    sync.Mutex
	chats map[*sdk.ServerSession]*client
	// calls are the calls in flight, each with how to tell its client
	// something (drain.go).
	calls map[*call]struct{}
}

// New returns the server.
func New(o Options) (*Server, error) {
	if o.Service == nil || o.Dir == "" {
		return nil, errors.New("mcpserve: Options.Service and Options.Dir are required")
	}
	if o.MaxFile <= 0 {
		o.MaxFile = 50 << 20
	}
	if o.MaxInline <= 0 {
		o.MaxInline = 8 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.MaxClients = cmp.Or(max(o.MaxClients, 0), 64)
	o.Quota = cmp.Or(max(o.Quota, 0), DefaultQuota)
	o.MaxBigCalls = cmp.Or(max(o.MaxBigCalls, 0), DefaultBigCalls)
	o.BigBody = cmp.Or(max(o.BigBody, 0), DefaultBigBody)
	o.BigWait = cmp.Or(max(o.BigWait, 0), DefaultBigWait)
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("mcp serve: cannot create %s: %w", o.Dir, err)
	}
	root, unlock, err := claimRoot(o.Dir, o.Logger)
	if err != nil {
		return nil, fmt.Errorf("mcp serve: cannot make a folder in %s: %w", o.Dir, err)
	}
	s := &Server{opts: o, root: root, unlock: unlock, big: make(chan struct{}, o.MaxBigCalls),
		chats: map[*sdk.ServerSession]*client{}, calls: map[*call]struct{}{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "chorus", Title: "Chorus", Version: cmp.Or(o.Version, "dev")}, &sdk.ServerOptions{
		Instructions: "Chorus plans a multimodal request into tasks, picks expert models for them, runs them and answers. " +
			"Send files as embedded data in the files argument; Chorus reads nothing else.",
		Logger: o.Logger,
	})
	s.sdk.AddTool(&sdk.Tool{
		Name:  "chorus",
		Title: "Chorus",
		Description: "Run a multimodal request through Chorus: plan, pick expert models, run them and answer. " +
			"Send the files it should use (images, audio, video, text) as embedded data in files; generated images and audio come back as content, other files as links.",
		InputSchema: inputSchema(true),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(true)},
	}, s.callChorus)
	s.sdk.AddTool(&sdk.Tool{
		Name:        "chorus_plan",
		Title:       "Chorus plan",
		Description: "Plan a request with Chorus without running it: the tasks, their dependencies and arguments, as JSON.",
		InputSchema: inputSchema(false),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)},
	}, s.callPlan)
	return s, nil
}

// SDK returns the MCP server, to run on a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

func boolPtr(b bool) *bool { return &b }

// inputSchema is the tools' input: the request, and files as data.
func inputSchema(withFiles bool) map[string]any {
	props := map[string]any{
		"request": map[string]any{"type": "string", "description": "what to do, in words (Chorus reads no file or path it names)"},
		"files": map[string]any{
			"type":        "array",
			"description": "files the request uses, as embedded data; they are all Chorus may read",
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":     map[string]any{"type": "string", "description": "a file name, e.g. photo.jpg (the request may refer to it)"},
					"mimeType": map[string]any{"type": "string", "description": "e.g. image/png"},
					"data":     map[string]any{"type": "string", "contentEncoding": "base64", "description": "the file's bytes in base64, or a data: URL"},
				},
				"required": []string{"data"},
			},
		},
	}
	if !withFiles {
		props["files"].(map[string]any)["description"] = "files the request is about, as embedded data"
	}
	return map[string]any{"type": "object", "properties": props, "required": []string{"request"}}
}

// stages numbers the stages for progress notifications.
var stages = map[pipeline.Stage]float64{pipeline.StagePlanning: 1, pipeline.StageSelection: 2, pipeline.StageExecution: 3, pipeline.StageResponse: 4}

// progress returns the emit of a call: a progress notification per stage,
// per task update and per wait for the controller's queue, when the client
// asked for progress; and say, which sends a message of the server's own
// (a restart's notice) the same way.
func progress(ctx context.Context, req *sdk.CallToolRequest, total float64) (emit pipeline.Emit, say func(msg string)) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func(pipeline.Event) {}, func(string) {}
	}
	var mu sync.Mutex
	last := 0.0
	send := func(p float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		if p <= last {
			// MCP wants each notification's progress above the last: a
			// task's update goes halfway to the next stage.
			p = last + (math.Floor(last)+1-last)/2
		}
		last = p
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: total, Message: text.OneLine(text.Clean(msg), 200)})
	}
	emit = func(ev pipeline.Event) {
		switch ev := ev.(type) {
		case pipeline.StageEvent:
			if n, ok := stages[ev.Stage]; ok && n <= total {
				send(n, string(ev.Stage))
			}
		case pipeline.TaskStartEvent:
			send(3, fmt.Sprintf("task %d %s on %s", ev.ID, ev.Task, ev.Model))
		case pipeline.TaskProgressEvent:
			send(3, fmt.Sprintf("task %d: %s", ev.ID, ev.Message))
		case pipeline.TaskEndEvent:
			send(3, fmt.Sprintf("task %d %s: %s", ev.ID, ev.Task, ev.Status))
		case pipeline.PlanRevisionEvent:
			send(3, ev.String())
		case pipeline.HostDownEvent:
			send(3, pipeline.HostDownText(ev))
		case pipeline.QueueEvent:
			// The controller is shared with every other client
			// (controller.max_concurrent): say why nothing moves.
			if ev.Waiting {
				send(0, pipeline.QueueText(ev))
			}
		}
	}
	return emit, func(msg string) { send(0, msg) }
}

// callChorus runs the request and returns the answer with its files.
func (s *Server) callChorus(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	c, done, err := s.begin(req.Session)
	if err != nil {
		return toolError(err.Error()), nil
	}
	defer done()
	in, files, err := s.readInput(req, c)
	if err != nil {
		return toolError(err.Error()), nil
	}
	start := time.Now()
	emit, say := progress(ctx, req, 4)
	defer s.inFlight(say)()
	res := c.chat.Run(ctx, conversation.Request{Request: in.Request, Attachments: files, Check: true,
		Approve: pipeline.AllowTools(s.opts.AllowTools)}, emit)
	s.opts.Logger.Info("mcp serve call", "tool", "chorus", "files", len(files), "ms", time.Since(start).Milliseconds(), "ok", res.Err == nil)
	if res.Err != nil && (res.Report == nil || res.Report.Answer == "") {
		return toolError(res.Err.Error()), nil
	}
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Report.Answer}}}
	for _, f := range res.Report.Files {
		out.Content = append(out.Content, s.fileContent(f))
	}
	return out, nil
}

// fileContent returns a generated file: an image or audio clip as
// content, anything else (video, a big file) as a link to it.
func (s *Server) fileContent(path string) sdk.Content {
	st, err := os.Stat(path)
	var size int64
	if err == nil {
		size = st.Size()
	}
	mt := skills.MIMEOfName(path)
	if err == nil && size <= s.opts.MaxInline {
		if data, err := os.ReadFile(path); err == nil {
			sniffed, m := skills.Sniff(data)
			switch m {
			case skills.Image:
				return &sdk.ImageContent{MIMEType: sniffed, Data: data}
			case skills.Audio:
				return &sdk.AudioContent{MIMEType: sniffed, Data: data}
			}
			mt = cmp.Or(sniffed, mt)
		}
	}
	link := &sdk.ResourceLink{URI: "file://" + filepath.ToSlash(path), Name: filepath.Base(path), MIMEType: mt}
	if err == nil {
		link.Size = &size
	}
	return link
}

// callPlan plans the request and returns the plan as JSON.
func (s *Server) callPlan(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	c, done, err := s.begin(req.Session)
	if err != nil {
		return toolError(err.Error()), nil
	}
	defer done()
	in, files, err := s.readInput(req, c)
	if err != nil {
		return toolError(err.Error()), nil
	}
	var plan *pipeline.PlanEvent
	emit, say := progress(ctx, req, 1)
	defer s.inFlight(say)()
	res := c.chat.Run(ctx, conversation.Request{Request: in.Request, Attachments: files, PlanOnly: true, Check: true}, func(ev pipeline.Event) {
		if p, ok := ev.(pipeline.PlanEvent); ok {
			plan = &p
		}
		emit(ev)
	})
	if plan == nil {
		msg := "no plan was made"
		if res.Err != nil {
			msg = res.Err.Error()
		}
		return toolError(msg), nil
	}
	body := map[string]any{"tasks": plan.Tasks}
	if len(plan.Notes) > 0 {
		body["notes"] = plan.Notes
	}
	b, _ := json.MarshalIndent(body, "", "  ")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}, StructuredContent: body}, nil
}

func toolError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text.Clean(msg)}}}
}

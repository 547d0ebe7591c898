package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/mcpserve"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

var attachedRE = regexp.MustCompile(`(?m)^- (/\S+) \(image\)`)

// planner plans image-resize on the first attached image, or on the path
// the request names when nothing is attached (which the server must
// refuse: it reads only what the call sent).
func planner(req *api.ChatRequest) fakeollama.Reply {
	last := req.Messages[len(req.Messages)-1].Content
	switch pipeline.PromptStage(last) {
	case string(pipeline.StagePlanning):
		path := ""
		if m := attachedRE.FindStringSubmatch(last); m != nil {
			path = m[1]
		} else if i := strings.Index(last, "/"); i >= 0 {
			path = strings.Fields(last[i:])[0]
		}
		return fakeollama.Reply{Content: fmt.Sprintf(`{"tasks":[{"task":"image-resize","id":1,"dep":[],"args":{"image":%q,"text":"50%%"}}]}`, path)}
	case string(pipeline.StageResponse):
		return fakeollama.Reply{Content: "Here is the smaller picture."}
	}
	return fakeollama.Reply{Content: "ok"}
}

// connect serves Chorus (a fake controller, the built-in tools) to a Go
// SDK client over an in-memory transport.
func connect(t *testing.T, progress func(*sdk.ProgressNotificationClientRequest)) *sdk.ClientSession {
	t.Helper()
	return dial(t, serve(t, plannerServer(t), controller.Options{}), progress)
}

// plannerServer is a fake Ollama serving the controller model "ctl",
// which answers as planner does.
func plannerServer(t *testing.T) *fakeollama.Server {
	t.Helper()
	ol := fakeollama.New(t)
	ol.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	ol.OnChat(planner)
	return ol
}

// serve starts the MCP server of Chorus with its controller on ol.
func serve(t *testing.T, ol *fakeollama.Server, opts controller.Options) *mcpserve.Server {
	t.Helper()
	return serveWith(t, ol, opts, mcpserve.Options{})
}

// serveWith is serve with the server's options o (its Dir a new temporary
// folder when not set).
func serveWith(t *testing.T, ol *fakeollama.Server, opts controller.Options, o mcpserve.Options) *mcpserve.Server {
	t.Helper()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	opts.Timeout = 30 * time.Second
	ctl, err := controller.New(ol.URL, "ctl", opts)
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeHybrid, builtin.New()), pipeline.Options{ControllerTasks: true, OutputDir: t.TempDir()})
	svc, err := conversation.New(conversation.Options{Engine: eng, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	o.Service, o.Version = svc, "test"
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	srv, err := mcpserve.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// dial connects one more MCP client to srv.
func dial(t *testing.T, srv *mcpserve.Server, progress func(*sdk.ProgressNotificationClientRequest)) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.SDK().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cl := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		if progress != nil {
			progress(r)
		}
	}})
	cs, err := cl.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestServeListsTools: tools/list gives chorus and chorus_plan with their
// input schemas and annotations.
func TestServeListsTools(t *testing.T) {
	cs := connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 || res.Tools[0].Name != "chorus" || res.Tools[1].Name != "chorus_plan" {
		t.Fatalf("tools %+v", res.Tools)
	}
	schema, _ := json.Marshal(res.Tools[0].InputSchema)
	if !strings.Contains(string(schema), `"required":["request"]`) || !strings.Contains(string(schema), `"contentEncoding":"base64"`) {
		t.Fatalf("schema %s", schema)
	}
	if !res.Tools[1].Annotations.ReadOnlyHint || res.Tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("annotations %+v %+v", res.Tools[0].Annotations, res.Tools[1].Annotations)
	}
}

// TestServeRunsARequestWithAFile: a PNG sent as embedded data is what the
// turn works on; the answer comes back as text with the generated image
// as image content, and progress arrives per stage.
func TestServeRunsARequestWithAFile(t *testing.T) {
	var mu sync.Mutex
	var stages []string
	// The client handles notifications on goroutines of its own: the last
	// may be handled after the result is back, so the test waits for it.
	answered := make(chan struct{})
	var once sync.Once
	cs := connect(t, func(r *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		stages = append(stages, fmt.Sprintf("%g/%g %s", r.Params.Progress, r.Params.Total, r.Params.Message))
		mu.Unlock()
		if r.Params.Progress == r.Params.Total {
			once.Do(func() { close(answered) })
		}
	})
	params := &sdk.CallToolParams{Name: "chorus", Arguments: map[string]any{
		"request": "make photo.png half as big",
		"files":   []any{map[string]any{"name": "photo.png", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(mcptest.PNG(40, 20))}},
	}}
	params.SetProgressToken("t1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("result %+v", res)
	}
	if txt := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(txt, "Here is the smaller picture.") {
		t.Fatalf("answer %q", txt)
	}
	img, ok := res.Content[1].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("second content %#v", res.Content[1])
	}
	dec, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil || dec.Bounds().Dx() != 20 || dec.Bounds().Dy() != 10 {
		t.Fatalf("returned image: %v %v", dec.Bounds(), err)
	}
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Error("no progress notification for the response stage")
	}
	mu.Lock()
	got := strings.Join(stages, "|")
	mu.Unlock()
	for _, want := range []string{"1/4 planning", "2/4 selection", "3/4 execution", "3.5/4 task 1 image-resize on chorus/resize", "4/4 response"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q: %s", want, got)
		}
	}
}

// TestServeReadsOnlyTheFilesSent: a request that names a file on this
// machine does not make Chorus read it; the plan's task is refused.
func TestServeReadsOnlyTheFilesSent(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.png")
	if err := os.WriteFile(secret, mcptest.PNG(30, 30), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chorus", Arguments: map[string]any{"request": "make " + secret + " half as big"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Content {
		if _, ok := c.(*sdk.ImageContent); ok {
			t.Fatal("an image came back from a file the call did not send")
		}
	}
	plan, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chorus_plan", Arguments: map[string]any{"request": "make " + secret + " half as big"}})
	if err != nil {
		t.Fatal(err)
	}
	txt := plan.Content[0].(*sdk.TextContent).Text
	// The server confines every chat to its own folder, so the refusal
	// names that folder (scope.Outside), before anything is read.
	if !strings.Contains(txt, `"tasks": []`) || !strings.Contains(txt, "is outside your folder on this server") {
		t.Fatalf("the plan kept a task on %s:\n%s", secret, txt)
	}
}

// TestServeRefusesBadInput: an empty request or undecodable data is a
// tool error, not a protocol failure.
func TestServeRefusesBadInput(t *testing.T) {
	cs := connect(t, nil)
	for args, want := range map[string]string{
		`{"request":"  "}`:                                        "request is empty",
		`{"request":"x","files":[{"data":"%%%"}]}`:                "files[0]: data is not base64",
		`{"request":"x","files":[{"data":"data:text/plain,hi"}]}`: "must be base64",
	} {
		var m map[string]any
		_ = json.Unmarshal([]byte(args), &m)
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "chorus", Arguments: m})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, want) {
			t.Errorf("%s: %+v", args, res.Content[0])
		}
	}
}

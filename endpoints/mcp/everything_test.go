package mcp_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/skills"
)

// everything starts the real reference server over stdio.
func everything(t *testing.T, env map[string]string) *mcp.Endpoint {
	t.Helper()
	return everythingServer(t, mcp.Server{Env: env})
}

// everythingServer is everything with s's settings (Trust, Env, …).
func everythingServer(t *testing.T, s mcp.Server) *mcp.Endpoint {
	t.Helper()
	node, script := mcptest.Everything(t)
	s.Name, s.Command, s.Args = "everything", node, []string{script, "stdio"}
	e := mcp.New(mcp.Options{Servers: []mcp.Server{s}})
	t.Cleanup(func() { e.Close() })
	e.Start(context.Background())
	if st := e.Status()[0]; st.State != "running" {
		t.Fatalf("server-everything did not start: %+v", st)
	}
	return e
}

func skillNamed(t *testing.T, e *mcp.Endpoint, name string) *skills.Skill {
	t.Helper()
	for _, s := range e.Skills() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no skill %s", name)
	return nil
}

// TestTrustedServerReadOnlyToolRunsUnasked (issue 25, 2): with mcp[].trust
// the operator relies on the server's annotations: its read-only tool runs
// without asking, a tool not annotated read-only still asks.
func TestTrustedServerReadOnlyToolRunsUnasked(t *testing.T) {
	t.Parallel()
	e := everythingServer(t, mcp.Server{Trust: true})
	if why := e.NeedsApproval("everything.get-sum", "everything.get-sum"); why != "" {
		t.Errorf("get-sum of a trusted server asks: %q", why)
	}
	if why := e.NeedsApproval("everything.toggle-simulated-logging", "everything.toggle-simulated-logging"); !strings.Contains(why, "not annotated read-only") {
		t.Errorf("a tool not annotated read-only of a trusted server: %q", why)
	}
}

// TestEverythingTools: the reference server's tools become skills named
// <server>.<tool>, with typed arguments and the annotations that decide
// whether a tool asks before it runs.
func TestEverythingTools(t *testing.T) {
	t.Parallel()
	e := everything(t, nil)
	sum := skillNamed(t, e, "everything.get-sum")
	if len(sum.Args) != 2 || sum.Args[0].Name != "a" || sum.Args[1].Name != "b" || sum.Args[0].Optional {
		t.Fatalf("get-sum args %+v", sum.Args)
	}
	if k := sum.Tool.Params["a"].Schema.Kind(); k != "number" {
		t.Fatalf("a is %q, want number", k)
	}
	if sum.Brief != "Returns the sum of two numbers" || sum.Source != "mcp:everything" {
		t.Fatalf("brief %q source %q", sum.Brief, sum.Source)
	}
	// get-sum says it is read-only; the server is not marked trusted, so
	// that claim is not relied on.
	if why := e.NeedsApproval("everything.get-sum", "everything.get-sum"); !strings.Contains(why, "not marked trusted (mcp[0].trust)") {
		t.Fatalf("get-sum of an untrusted server: %q", why)
	}
	img := skillNamed(t, e, "everything.get-tiny-image")
	if len(img.Args) != 0 || !strings.Contains(joinMods(img.Outputs), "image") {
		t.Fatalf("get-tiny-image: args %+v outputs %v", img.Args, img.Outputs)
	}
	if err := e.Check(context.Background(), "everything.get-sum", "everything.get-sum"); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(context.Background(), "everything.nope", "everything.nope"); err == nil || !strings.Contains(err.Error(), `no tool "nope"`) {
		t.Fatalf("check of a missing tool: %v", err)
	}
}

func joinMods(ms []skills.Modality) string {
	var s []string
	for _, m := range ms {
		s = append(s, string(m))
	}
	return strings.Join(s, ",")
}

// TestEverythingGetSum: arguments written as text reach the tool as the
// numbers its schema asks for.
func TestEverythingGetSum(t *testing.T) {
	t.Parallel()
	e := everything(t, nil)
	res, err := e.Infer(context.Background(), endpoints.Request{Task: "everything.get-sum", Model: "everything.get-sum", Args: map[string]string{"a": "2", "b": " 3.50 "}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The sum of 2 and 3.5 is 5.5." {
		t.Fatalf("result %q", res.Text)
	}
	_, err = e.Infer(context.Background(), endpoints.Request{Task: "everything.get-sum", Model: "everything.get-sum", Args: map[string]string{"a": "two", "b": "3"}})
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), `argument a: "two" is not a number`) {
		t.Fatalf("a wrong argument: %v", err)
	}
}

// TestEverythingTinyImage: an image in the result becomes a file, its
// type sniffed from its bytes.
func TestEverythingTinyImage(t *testing.T) {
	t.Parallel()
	e := everything(t, nil)
	res, err := e.Infer(context.Background(), endpoints.Request{Task: "everything.get-tiny-image", Model: "everything.get-tiny-image", Args: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blobs) != 1 || res.Blobs[0].MIME != "image/png" || len(res.Blobs[0].Data) < 1000 {
		t.Fatalf("blobs %+v", res.Blobs)
	}
	if !strings.Contains(res.Text, "MCP logo") {
		t.Fatalf("text %q", res.Text)
	}
}

// TestEverythingProgressAndCancel: progress notifications reach the
// task's progress; cancelling the context ends the call at once (and the
// SDK tells the server with notifications/cancelled), and the server
// goes on serving.
func TestEverythingProgressAndCancel(t *testing.T) {
	t.Parallel()
	e := everything(t, nil)
	var mu sync.Mutex
	var msgs []string
	progress := func(p endpoints.Progress) {
		mu.Lock()
		msgs = append(msgs, p.Message)
		mu.Unlock()
	}
	res, err := e.Infer(context.Background(), endpoints.Request{Task: "everything.trigger-long-running-operation", Model: "everything.trigger-long-running-operation",
		Args: map[string]string{"duration": "1", "steps": "4"}, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	// The last notification may race the result and be dropped.
	if len(msgs) < 3 || msgs[2] != "everything.trigger-long-running-operation: 3 of 4" {
		t.Fatalf("progress %q", msgs)
	}
	mu.Unlock()
	if !strings.Contains(res.Text, "completed") {
		t.Fatalf("text %q", res.Text)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = e.Infer(ctx, endpoints.Request{Task: "everything.trigger-long-running-operation", Model: "everything.trigger-long-running-operation",
		Args: map[string]string{"duration": "30", "steps": "30"}, Progress: progress})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Fatalf("cancel: %v after %s", err, time.Since(start))
	}
	res, err = e.Infer(context.Background(), endpoints.Request{Task: "everything.get-sum", Model: "everything.get-sum", Args: map[string]string{"a": "1", "b": "1"}})
	if err != nil || !strings.Contains(res.Text, "is 2") {
		t.Fatalf("after a cancel: %q %v", res.Text, err)
	}
}

// TestEverythingEnvIsMinimal: get-env returns the server's whole
// environment; Chorus's secrets are not in it unless env: names them.
func TestEverythingEnvIsMinimal(t *testing.T) {
	t.Setenv("HF_TOKEN", "hf_secretsecretsecret")
	t.Setenv("OPENAI_API_KEY", "sk-secretsecret")
	t.Setenv("CHORUS_HUGGINGFACE_TOKEN", "hf_othersecret")
	e := everything(t, map[string]string{"GREETING": "hello"})
	res, err := e.Infer(context.Background(), endpoints.Request{Task: "everything.get-env", Model: "everything.get-env", Args: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hf_secretsecretsecret", "sk-secretsecret", "hf_othersecret", "HF_TOKEN", "OPENAI_API_KEY"} {
		if strings.Contains(res.Text, secret) {
			t.Fatalf("the server's environment holds %s:\n%s", secret, res.Text)
		}
	}
	if !strings.Contains(res.Text, `"GREETING": "hello"`) || !strings.Contains(res.Text, `"PATH"`) {
		t.Fatalf("env: %s", res.Text)
	}
}

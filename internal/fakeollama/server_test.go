package fakeollama_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
)

// guard bounds a wait that should finish at once; it only fails a broken
// implementation, it never paces the test.
const guard = 10 * time.Second

func ptr[T any](v T) *T { return &v }

func newServer(t *testing.T) *fakeollama.Server {
	t.Helper()
	s := fakeollama.New(t)
	s.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B",
		Capabilities: []string{"completion", "tools", "thinking"}})
	s.AddModel(fakeollama.Model{Name: "llava:7b", Family: "llama", ParameterSize: "7B",
		Capabilities: []string{"completion", "vision"}})
	s.AddModel(fakeollama.Model{Name: "nomic-embed-text", Family: "nomic-bert", ParameterSize: "137M",
		Capabilities: []string{"embedding"}})
	return s
}

func statusErr(t *testing.T, err error) api.StatusError {
	t.Helper()
	var se api.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not an api.StatusError", err, err)
	}
	return se
}

func TestRunningVersionTagsShow(t *testing.T) {
	s := newServer(t)
	c := s.Client()
	ctx := context.Background()
	if err := c.Heartbeat(ctx); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	resp, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "Ollama is running" {
		t.Errorf("GET / = %q", body)
	}
	if v, err := c.Version(ctx); err != nil || v != "0.11.4" {
		t.Errorf("version = %q, %v", v, err)
	}

	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]api.ListModelResponse{}
	for _, m := range list.Models {
		names[m.Name] = m
	}
	if len(names) != 3 {
		t.Fatalf("tags = %v, want 3 models", names)
	}
	lv, ok := names["llava:7b"]
	if !ok || lv.Details.ParameterSize != "7B" || lv.Size <= 0 || lv.Digest == "" {
		t.Errorf("llava:7b in tags = %+v", lv)
	}
	if _, ok := names["nomic-embed-text:latest"]; !ok {
		t.Errorf("a model added without a tag should be listed as :latest; got %v", names)
	}

	show, err := c.Show(ctx, &api.ShowRequest{Model: "LLaVA:7b"}) // names compare case-insensitively
	if err != nil {
		t.Fatal(err)
	}
	caps := map[string]bool{}
	for _, c := range show.Capabilities {
		caps[string(c)] = true
	}
	if !caps["vision"] || !caps["completion"] || caps["tools"] {
		t.Errorf("llava capabilities = %v", show.Capabilities)
	}
	if show.Details.Family != "llama" || show.ModelInfo["llama.context_length"] == nil || show.ProjectorInfo == nil {
		t.Errorf("show = %+v", show)
	}

	_, err = c.Show(ctx, &api.ShowRequest{Model: "missing:1b"})
	se := statusErr(t, err)
	if se.StatusCode != 404 || se.ErrorMessage != "model 'missing:1b' not found" {
		t.Errorf("show missing = %+v", se)
	}
}

func TestChatReallyStreams(t *testing.T) {
	s := newServer(t)
	live := make(chan string)
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Stream: live} })

	got := make(chan api.ChatResponse)
	errc := make(chan error, 1)
	go func() {
		errc <- s.Client().Chat(context.Background(), &api.ChatRequest{
			Model: "qwen3:8b", Messages: []api.Message{{Role: "user", Content: "hi"}},
		}, func(r api.ChatResponse) error { got <- r; return nil })
	}()
	recv := func() api.ChatResponse {
		t.Helper()
		select {
		case r := <-got:
			return r
		case err := <-errc:
			t.Fatalf("chat ended early: %v", err)
		case <-time.After(guard):
			t.Fatal("no chunk arrived")
		}
		return api.ChatResponse{}
	}
	// Each token is only produced after the client saw the previous one, so
	// this passes only if chunks are flushed one by one.
	for _, tok := range []string{"Hello", " world", "!"} {
		live <- tok
		r := recv()
		if r.Done || r.Message.Content != tok || r.Message.Role != "assistant" {
			t.Fatalf("chunk = %+v, want content %q not done", r, tok)
		}
	}
	close(live)
	last := recv()
	if !last.Done || last.DoneReason != "stop" || last.EvalCount != 3 || last.PromptEvalCount == 0 ||
		last.TotalDuration <= 0 || last.EvalDuration <= 0 || last.Message.Content != "" {
		t.Errorf("final chunk = %+v", last)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func postRaw(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestChatWireShapes(t *testing.T) {
	s := newServer(t)
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: "one two three"} })

	// Streaming by default: NDJSON, done:false chunks, then one done:true.
	resp, body := postRaw(t, s.URL+"/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	var lines []map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 3 tokens and a final: %s", len(lines), body)
	}
	var text string
	for _, l := range lines[:3] {
		if l["done"] != false {
			t.Errorf("chunk %v should have done:false", l)
		}
		text += l["message"].(map[string]any)["content"].(string)
	}
	if text != "one two three" {
		t.Errorf("streamed text %q", text)
	}
	fin := lines[3]
	for _, k := range []string{"total_duration", "load_duration", "prompt_eval_count", "eval_count", "eval_duration", "created_at"} {
		if _, ok := fin[k]; !ok {
			t.Errorf("final chunk lacks %s: %v", k, fin)
		}
	}
	if fin["done"] != true || fin["done_reason"] != "stop" {
		t.Errorf("final = %v", fin)
	}

	// "stream": false: one JSON object.
	resp, body = postRaw(t, s.URL+"/api/chat", `{"model":"qwen3:8b","stream":false,"messages":[{"role":"user","content":"x"}]}`)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || strings.Count(strings.TrimSpace(string(body)), "\n") != 0 {
		t.Fatalf("stream:false answered %q with %q", resp.Header.Get("Content-Type"), body)
	}
	var one api.ChatResponse
	if err := json.Unmarshal(body, &one); err != nil || !one.Done || one.Message.Content != "one two three" || one.EvalCount != 3 {
		t.Errorf("stream:false = %+v, %v", one, err)
	}
}

func TestChatErrorsMatchRealServer(t *testing.T) {
	s := newServer(t)
	c := s.Client()
	ctx := context.Background()
	msgs := []api.Message{{Role: "user", Content: "hi"}}
	chat := func(req api.ChatRequest) error {
		return c.Chat(ctx, &req, func(api.ChatResponse) error { return nil })
	}

	se := statusErr(t, chat(api.ChatRequest{Model: "llama3.2:1b", Messages: msgs}))
	if se.StatusCode != 404 || se.ErrorMessage != `model "llama3.2:1b" not found, try pulling it first` {
		t.Errorf("unknown model: %+v", se)
	}

	se = statusErr(t, chat(api.ChatRequest{Model: "qwen3:8b", Messages: []api.Message{{Role: "user", Content: "look", Images: []api.ImageData{[]byte("png")}}}}))
	if se.StatusCode != 400 || se.ErrorMessage != "registry.ollama.ai/library/qwen3:8b does not support vision" {
		t.Errorf("image to text model: %+v", se)
	}

	se = statusErr(t, chat(api.ChatRequest{Model: "llava:7b", Messages: msgs, Tools: api.Tools{{Type: "function"}}}))
	if se.StatusCode != 400 || !strings.Contains(se.ErrorMessage, "does not support tools") {
		t.Errorf("tools to llava: %+v", se)
	}
	se = statusErr(t, chat(api.ChatRequest{Model: "nomic-embed-text", Messages: msgs}))
	if se.StatusCode != 400 || se.ErrorMessage != `"nomic-embed-text" does not support chat` {
		t.Errorf("chat with an embedding model: %+v", se)
	}

	// An invalid format fails once generation starts: streamed, the client
	// sees the error line; not streamed, HTTP 500.
	err := chat(api.ChatRequest{Model: "qwen3:8b", Messages: msgs, Format: json.RawMessage(`"yaml"`)})
	if err == nil || !strings.Contains(err.Error(), `invalid format: "\"yaml\""; expected "json" or a valid JSON Schema object`) {
		t.Errorf("invalid format, streamed: %v", err)
	}
	se = statusErr(t, chat(api.ChatRequest{Model: "qwen3:8b", Messages: msgs, Stream: ptr(false), Format: json.RawMessage(`{"type":"banana"}`)}))
	if se.StatusCode != 500 || se.ErrorMessage != "invalid JSON schema in format" {
		t.Errorf("invalid schema: %+v", se)
	}

	resp, body := postRaw(t, s.URL+"/api/chat", `{"model": "qwen3:8b", "messages": [`)
	if resp.StatusCode != 400 || !strings.Contains(string(body), `"error":"unexpected EOF"`) {
		t.Errorf("bad JSON: %d %s", resp.StatusCode, body)
	}
	resp, body = postRaw(t, s.URL+"/api/chat", ``)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "missing request body") {
		t.Errorf("empty body: %d %s", resp.StatusCode, body)
	}
	resp, body = postRaw(t, s.URL+"/api/chat", `{"model":"qwen3:8b","stream":"yes"}`)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "cannot unmarshal string") {
		t.Errorf("wrong type: %d %s", resp.StatusCode, body)
	}

	// Scripted failures: an HTTP status, and a runner dying mid-stream.
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Status: 503, Error: "server busy, please try again.  maximum pending requests exceeded"}
	})
	se = statusErr(t, chat(api.ChatRequest{Model: "qwen3:8b", Messages: msgs}))
	if se.StatusCode != 503 || !strings.Contains(se.ErrorMessage, "server busy") {
		t.Errorf("scripted 503: %+v", se)
	}
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: "partial answer", Error: "model runner has unexpectedly stopped"}
	})
	var seen string
	err = c.Chat(ctx, &api.ChatRequest{Model: "qwen3:8b", Messages: msgs}, func(r api.ChatResponse) error {
		seen += r.Message.Content
		return nil
	})
	if seen != "partial answer" || err == nil || err.Error() != "model runner has unexpectedly stopped" {
		t.Errorf("mid-stream failure: saw %q, err %v", seen, err)
	}
}

func TestFormatReachesResponderAndValidates(t *testing.T) {
	s := newServer(t)
	schema := json.RawMessage(`{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object",
		"properties":{"id":{"type":"integer"},"task":{"type":"string","enum":["image-to-text","summarization"]}},
		"required":["id","task"]}}},"required":["tasks"]}`)
	var sawFormat json.RawMessage
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		sawFormat = req.Format
		return fakeollama.Reply{Content: `{"tasks":[{"id":0,"task":"image-to-text"}]}`}
	})
	var out string
	err := s.Client().Chat(context.Background(), &api.ChatRequest{Model: "qwen3:8b", Format: schema, Stream: ptr(false),
		Messages: []api.Message{{Role: "user", Content: "plan"}}}, func(r api.ChatResponse) error { out = r.Message.Content; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := fakeollama.Validate(sawFormat, []byte(out)); err != nil {
		t.Errorf("reply should satisfy the schema the client sent: %v", err)
	}
	if got := s.ChatRequests(); len(got) != 1 || string(got[0].Format) != string(sawFormat) {
		t.Errorf("recorded chat requests = %+v", got)
	}
	bad := []struct{ doc, want string }{
		{`{"tasks":[{"id":"0","task":"image-to-text"}]}`, "$.tasks[0].id: want integer, got string"},
		{`{"tasks":[{"id":0,"task":"painting"}]}`, "$.tasks[0].task: painting is not one of"},
		{`{"tasks":[{"task":"summarization"}]}`, `$.tasks[0]: missing required property "id"`},
		{`{}`, `missing required property "tasks"`},
		{`[1]`, "$: want object, got array"},
		{`{"tasks":`, "not JSON"},
	}
	for _, b := range bad {
		if err := fakeollama.Validate(schema, []byte(b.doc)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Validate(%s) = %v, want %q", b.doc, err, b.want)
		}
	}
	if err := fakeollama.Validate(json.RawMessage(`"json"`), []byte(`{}`)); err == nil {
		t.Error(`format "json" is not a schema, Validate should say so`)
	}
	if err := fakeollama.Validate(nil, []byte(`{}`)); err == nil {
		t.Error("no format is not a schema, Validate should say so")
	}
}

func TestNumPredictAndThinking(t *testing.T) {
	s := newServer(t)
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Thinking: "let me see", Content: "a b c d e"}
	})
	c := s.Client()
	run := func(req api.ChatRequest) (content, thinking string, last api.ChatResponse) {
		t.Helper()
		req.Model, req.Messages = "qwen3:8b", []api.Message{{Role: "user", Content: "q"}}
		err := c.Chat(context.Background(), &req, func(r api.ChatResponse) error {
			content += r.Message.Content
			thinking += r.Message.Thinking
			last = r
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	content, thinking, last := run(api.ChatRequest{Think: &api.ThinkValue{Value: true}})
	if content != "a b c d e" || thinking != "let me see" || last.DoneReason != "stop" {
		t.Errorf("think:true gave content %q thinking %q", content, thinking)
	}
	content, thinking, _ = run(api.ChatRequest{})
	if !strings.HasPrefix(content, "<think>\nlet me see\n</think>") || thinking != "" {
		t.Errorf("think unset gave content %q thinking %q", content, thinking)
	}
	content, _, last = run(api.ChatRequest{Think: &api.ThinkValue{Value: false}, Options: map[string]any{"num_predict": 2}})
	if content != "a b" || last.DoneReason != "length" || last.EvalCount != 2 {
		t.Errorf("num_predict 2 gave %q, %q, eval_count %d", content, last.DoneReason, last.EvalCount)
	}
	err := c.Chat(context.Background(), &api.ChatRequest{Model: "llava:7b", Think: &api.ThinkValue{Value: true},
		Messages: []api.Message{{Role: "user", Content: "q"}}}, func(api.ChatResponse) error { return nil })
	if se := statusErr(t, err); se.StatusCode != 400 || !strings.Contains(se.ErrorMessage, "does not support thinking") {
		t.Errorf("think on llava: %+v", se)
	}
}

func TestCancelStopsStalledAnswer(t *testing.T) {
	s := newServer(t)
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Chunks: []string{"first"}, Stall: true}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var chunks []api.ChatResponse
	err := s.Client().Chat(ctx, &api.ChatRequest{Model: "qwen3:8b", Messages: []api.Message{{Role: "user", Content: "q"}}},
		func(r api.ChatResponse) error {
			chunks = append(chunks, r)
			if r.Message.Content == "first" {
				cancel() // Ctrl+C after the first token
			}
			return nil
		})
	// The official client ends a stream cut by cancellation without an
	// error (its scanner just stops), so callers must look at ctx.Err()
	// and at whether a done chunk arrived.
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(chunks) != 1 || chunks[0].Done {
		t.Fatalf("chunks = %+v, want just the first token", chunks)
	}
	s.WaitIdle()
	reqs := s.RequestsTo("/api/chat")
	if len(reqs) != 1 || !reqs[0].Canceled {
		t.Errorf("server should have seen the request cancelled: %+v", reqs)
	}

	// A slow answer stops waiting as soon as the client goes away.
	started := make(chan struct{}, 1)
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		started <- struct{}{}
		return fakeollama.Reply{Content: "slow answer", ChunkDelay: time.Hour}
	})
	ctx2, cancel2 := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.Client().Chat(ctx2, &api.ChatRequest{Model: "qwen3:8b", Messages: []api.Message{{Role: "user", Content: "q"}}},
			func(api.ChatResponse) error { return nil })
	}()
	select {
	case <-started:
	case <-time.After(guard):
		t.Fatal("request never reached the responder")
	}
	cancel2()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	case <-time.After(guard):
		t.Fatal("cancel did not end a slow answer")
	}
	s.WaitIdle() // the handler returns too, instead of sleeping for an hour
}

func TestGenerateAndPs(t *testing.T) {
	s := newServer(t)
	s.OnGenerate(func(req *api.GenerateRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: "described: " + req.Prompt}
	})
	c := s.Client()
	var text string
	var last api.GenerateResponse
	err := c.Generate(context.Background(), &api.GenerateRequest{Model: "llava:7b", Prompt: "the image", Images: []api.ImageData{{1, 2}}},
		func(r api.GenerateResponse) error { text += r.Response; last = r; return nil })
	if err != nil || text != "described: the image" || !last.Done || len(last.Context) == 0 {
		t.Errorf("generate = %q, %+v, %v", text, last, err)
	}
	if got := s.GenerateRequests(); len(got) != 1 || len(got[0].Images) != 1 {
		t.Errorf("recorded generate requests = %+v", got)
	}
	err = c.Generate(context.Background(), &api.GenerateRequest{Model: "gone:1b", Prompt: "x"}, func(api.GenerateResponse) error { return nil })
	if se := statusErr(t, err); se.StatusCode != 404 || se.ErrorMessage != "model 'gone:1b' not found" {
		t.Errorf("generate unknown = %+v", se)
	}
	ps, err := c.ListRunning(context.Background())
	if err != nil || len(ps.Models) != 1 || ps.Models[0].Name != "llava:7b" || ps.Models[0].ExpiresAt.IsZero() {
		t.Errorf("ps = %+v, %v", ps, err)
	}
}

func TestPullProgress(t *testing.T) {
	s := newServer(t)
	s.SetPullable("moondream", fakeollama.Model{Capabilities: []string{"completion", "vision"}, ParameterSize: "1.4B"})
	c := s.Client()
	var seen []api.ProgressResponse
	err := c.Pull(context.Background(), &api.PullRequest{Model: "moondream"}, func(p api.ProgressResponse) error {
		seen = append(seen, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen[0].Status != "pulling manifest" || seen[len(seen)-1].Status != "success" {
		t.Fatalf("progress = %+v", seen)
	}
	var partial, full, verify, write bool
	for _, p := range seen {
		if strings.HasPrefix(p.Status, "pulling ") && p.Digest != "" {
			if p.Status != "pulling "+p.Digest[7:19] || p.Total <= 0 {
				t.Errorf("download progress %+v", p)
			}
			partial = partial || (p.Completed > 0 && p.Completed < p.Total)
			full = full || (p.Completed == p.Total && p.Total > 1<<20)
		}
		verify = verify || p.Status == "verifying sha256 digest"
		write = write || p.Status == "writing manifest"
	}
	if !partial || !full || !verify || !write {
		t.Errorf("missing progress steps in %+v", seen)
	}
	if _, err := c.Show(context.Background(), &api.ShowRequest{Model: "moondream:latest"}); err != nil {
		t.Errorf("pulled model should be served: %v", err)
	}

	err = c.Pull(context.Background(), &api.PullRequest{Model: "no-such-model"}, func(api.ProgressResponse) error { return nil })
	if err == nil || err.Error() != "pull model manifest: file does not exist" {
		t.Errorf("pull unknown = %v", err)
	}
	err = c.Pull(context.Background(), &api.PullRequest{Model: "bad name!"}, func(api.ProgressResponse) error { return nil })
	if se := statusErr(t, err); se.StatusCode != 400 || se.ErrorMessage != "invalid model name" {
		t.Errorf("pull invalid = %+v", se)
	}
	resp, body := postRaw(t, s.URL+"/api/pull", `{"model":"moondream","stream":false}`)
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != `{"status":"success"}` {
		t.Errorf("pull stream:false = %d %s", resp.StatusCode, body)
	}
}

func TestStopRefusesConnections(t *testing.T) {
	s := newServer(t)
	c := s.Client()
	s.Stop()
	err := c.Heartbeat(context.Background())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("after Stop, heartbeat = %v, want connection refused", err)
	}
	s.Close() // idempotent
}

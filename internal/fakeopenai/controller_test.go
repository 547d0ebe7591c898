package fakeopenai

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func post(t *testing.T, url, key string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sse reads a stream's data lines until [DONE], which must come last.
func sse(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	done := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an SSE data line: %q", line)
		}
		if done {
			t.Fatalf("data after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		out = append(out, m)
	}
	if !done {
		t.Fatal("the stream did not end with data: [DONE]")
	}
	return out
}

func chatBody(stream bool, format any) map[string]any {
	b := map[string]any{"model": "qwen3-8b", "stream": stream,
		"messages": []any{map[string]any{"role": "system", "content": strings.Repeat("a stable head ", 40)},
			map[string]any{"role": "user", "content": "plan this"}}}
	if stream {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	if format != nil {
		b["response_format"] = format
	}
	return b
}

var planSchema = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "plan", "strict": true,
	"schema": map[string]any{"type": "object", "properties": map[string]any{"tasks": map[string]any{"type": "array"}},
		"required": []string{"tasks"}, "additionalProperties": false}}}

// vLLM streams the content, a finish chunk, then (asked for) the usage in
// a chunk with no choices, then [DONE]; the prefix cache counts the stable
// head of the second call in blocks of 16 tokens.
func TestControllerVLLMStream(t *testing.T) {
	s := NewController(t, VLLM, "qwen3-8b")
	s.OnChat(func(_ context.Context, req *ChatRequest) ChatReply {
		return ChatReply{Content: `{"tasks": []}`}
	})
	var chunks []map[string]any
	for range 2 {
		chunks = sse(t, post(t, s.URL, "", chatBody(true, planSchema)))
	}
	var text strings.Builder
	for _, c := range chunks[:len(chunks)-1] {
		ch := c["choices"].([]any)[0].(map[string]any)
		if content, ok := ch["delta"].(map[string]any)["content"].(string); ok {
			text.WriteString(content)
		}
	}
	if text.String() != `{"tasks": []}` {
		t.Errorf("streamed %q", text.String())
	}
	if fin := chunks[len(chunks)-2]["choices"].([]any)[0].(map[string]any)["finish_reason"]; fin != "stop" {
		t.Errorf("finish chunk %v", chunks[len(chunks)-2])
	}
	last := chunks[len(chunks)-1]
	if len(last["choices"].([]any)) != 0 {
		t.Errorf("vLLM's usage chunk has no choices: %v", last)
	}
	usage := last["usage"].(map[string]any)
	cached := usage["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64)
	if cached == 0 || int(cached)%16 != 0 || cached >= usage["prompt_tokens"].(float64) {
		t.Errorf("usage %v: the repeated prompt should be cached in 16-token blocks", usage)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Format != "json_schema" || !reqs[0].Strict || reqs[0].SchemaName != "plan" || reqs[0].CachedTokens != 0 {
		t.Fatalf("recorded %+v", reqs)
	}
	if e := reqs[0].SchemaError(`{"tasks": []}`); e != "" {
		t.Error(e)
	}
	if e := reqs[0].SchemaError(`{"steps": []}`); e == "" {
		t.Error("a reply breaking the schema should be named")
	}
}

// llama-server puts the usage (and timings) in the finish chunk, always.
func TestControllerLlamaServerStream(t *testing.T) {
	s := NewController(t, LlamaServer, "model.gguf")
	body := chatBody(true, nil)
	delete(body, "stream_options")
	body["model"] = "whatever" // llama-server serves the one model it loaded
	chunks := sse(t, post(t, s.URL, "", body))
	last := chunks[len(chunks)-1]
	if last["choices"].([]any)[0].(map[string]any)["finish_reason"] != "stop" || last["usage"] == nil || last["timings"] == nil {
		t.Fatalf("llama-server's last chunk carries finish_reason, usage and timings: %v", last)
	}
}

// Refusals come in each engine's own shape.
func TestControllerErrorShapes(t *testing.T) {
	for _, tc := range []struct {
		engine Engine
		want   string
	}{
		{VLLM, `{"error":{"code":400,"message":"The provided JSON schema contains features not supported by xgrammar.","param":null,"type":"BadRequestError"}}`},
		{LlamaServer, `{"error":{"code":400,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"invalid_request_error"}}`},
	} {
		s := NewController(t, tc.engine, "qwen3-8b")
		s.RejectSchemas(true)
		resp := post(t, s.URL, "", chatBody(true, planSchema))
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || strings.TrimSpace(string(b)) != tc.want {
			t.Errorf("%s: %d %s\nwant %s", tc.engine, resp.StatusCode, b, tc.want)
		}
		// json_object still works: the fallback a client takes.
		if chunks := sse(t, post(t, s.URL, "", chatBody(true, map[string]any{"type": "json_object"}))); len(chunks) < 2 {
			t.Errorf("%s: json_object answered %v", tc.engine, chunks)
		}
	}
	v := NewController(t, VLLM, "qwen3-8b")
	v.RequireKey("sk-1")
	resp := post(t, v.URL, "", chatBody(false, nil))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || string(b) != `{"error":"Unauthorized"}` {
		t.Errorf("vLLM without the key: %d %s", resp.StatusCode, b)
	}
	body := chatBody(false, nil)
	body["model"] = "other"
	resp = post(t, v.URL, "sk-1", body)
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(b), "The model `other` does not exist.") {
		t.Errorf("vLLM, unknown model: %d %s", resp.StatusCode, b)
	}
}

// Slots bound the requests served at once; the rest wait their turn.
func TestControllerSlots(t *testing.T) {
	s := NewController(t, VLLM, "qwen3-8b")
	s.SetSlots(2)
	s.SetLatency(Latency{FirstToken: 50 * time.Millisecond, PerToken: time.Millisecond})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			resp := post(t, s.URL, "", chatBody(false, nil))
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	st := s.Stats()
	if st.Calls != 6 || st.PeakActive != 2 || st.PeakQueued < 1 {
		t.Fatalf("stats %+v: want 6 calls, at most 2 at once, the others queued", st)
	}
}

// Each quirk changes the wire as the server it stands for does.
func TestControllerQuirks(t *testing.T) {
	raw := func(resp *http.Response) string {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	s := NewController(t, VLLM, "qwen3-8b")

	s.SetQuirks(Quirks{Unstreamed: true})
	resp := post(t, s.URL, "", chatBody(true, nil))
	if body := raw(resp); resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"object":"chat.completion"`) || !strings.Contains(body, `"usage"`) {
		t.Errorf("unstreamed: %s %s", resp.Header.Get("Content-Type"), body)
	}

	s.SetQuirks(Quirks{NoUsage: true})
	for _, c := range sse(t, post(t, s.URL, "", chatBody(true, nil))) {
		if c["usage"] != nil {
			t.Errorf("no usage: %v", c)
		}
	}

	s.SetQuirks(Quirks{RefuseStreamOptions: true})
	if resp := post(t, s.URL, "", chatBody(true, nil)); resp.StatusCode != 400 || !strings.Contains(raw(resp), "stream_options") {
		t.Error("stream_options should be refused, naming them")
	}
	body := chatBody(true, nil)
	delete(body, "stream_options")
	sse(t, post(t, s.URL, "", body))

	s.SetQuirks(Quirks{RefuseJSONMode: true})
	for _, f := range []any{planSchema, map[string]any{"type": "json_object"}} {
		if resp := post(t, s.URL, "", chatBody(true, f)); resp.StatusCode != 400 || !strings.Contains(raw(resp), "response_format") {
			t.Errorf("%v should be refused", f)
		}
	}
	if n := len(s.Refusals()); n != 3 {
		t.Errorf("%d refusals recorded, want 3", n)
	}

	s.SetQuirks(Quirks{KeepAlives: true, NoDone: true})
	body2 := raw(post(t, s.URL, "", chatBody(true, nil)))
	if !strings.HasPrefix(body2, ": OPENROUTER PROCESSING\n\n") || !strings.Contains(body2, ": keep-alive\n\nevent: ping\n") || strings.Contains(body2, "[DONE]") {
		t.Errorf("keep-alives without [DONE]: %q", body2)
	}
}

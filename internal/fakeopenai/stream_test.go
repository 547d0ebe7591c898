package fakeopenai

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestControllerLiveStream: a reply streamed live sends each string as it
// comes — as delta.content, or delta.reasoning_content as vLLM's and
// SGLang's reasoning parsers do — after what Raw writes verbatim
// (comments, pings), and ends as StreamEnd says: with its finish reason,
// or the engine's error object, then [DONE].
func TestControllerLiveStream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		engine    Engine
		reasoning bool
		raw       []string
		finish    string
		fail      string
		want      []string // the body's lines in order, each a substring
		field     string   // the delta field the strings go in
	}{
		{name: "content, cut at the length", engine: VLLM, finish: "length", field: "content",
			want: []string{`"delta":{"content":"","role":"assistant"}`, `"delta":{"content":"one "}`, `"delta":{"content":"two"}`, `"finish_reason":"length"`, "data: [DONE]"}},
		{name: "reasoning", engine: VLLM, reasoning: true, field: "reasoning_content",
			want: []string{`"role":"assistant"`, `"delta":{"reasoning_content":"one "}`, `"delta":{"reasoning_content":"two"}`, `"finish_reason":"stop"`, "data: [DONE]"}},
		{name: "raw comments and pings first", engine: LlamaServer, raw: []string{": OPENROUTER PROCESSING\n\n", "event: ping\ndata: {\"type\":\"ping\"}\n\n"}, field: "content",
			want: []string{`"delta":{"content":null,"role":"assistant"}`, ": OPENROUTER PROCESSING", "event: ping", `data: {"type":"ping"}`, `"delta":{"content":"one "}`, `"finish_reason":"stop"`, "data: [DONE]"}},
		{name: "failing mid-stream", engine: LlamaServer, fail: "context shift is disabled", field: "content",
			want: []string{`"delta":{"content":"two"}`, `data: {"error":{"code":500,"message":"context shift is disabled","type":"server_error"}}`, "data: [DONE]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewController(t, tc.engine, "qwen3-8b")
			s.OnChat(func(_ context.Context, _ *ChatRequest) ChatReply {
				stream, raw := make(chan string, 2), make(chan string, len(tc.raw))
				stream <- "one "
				stream <- "two"
				close(stream)
				for _, r := range tc.raw {
					raw <- r
				}
				close(raw)
				r := ChatReply{Stream: stream, StreamReasoning: tc.reasoning, StreamEnd: func() (string, string) { return tc.finish, tc.fail }}
				if tc.raw != nil {
					r.Raw = raw
				}
				return r
			})
			body := chatBody(true, nil)
			delete(body, "stream_options")
			resp := post(t, s.URL, "", body)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			rest := string(b)
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("no %q after what came before in:\n%s", w, b)
				}
				rest = rest[i+len(w):]
			}
			// The strings go in the one field, not both.
			other := map[string]string{"content": `"reasoning_content"`, "reasoning_content": `"content":"one`}[tc.field]
			if strings.Contains(string(b), other) {
				t.Errorf("a string sent as %s:\n%s", other, b)
			}
			for line := range strings.Lines(string(b)) {
				data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
				if ok && data != "[DONE]" && !json.Valid([]byte(data)) {
					t.Errorf("data line %q is not JSON", data)
				}
			}
		})
	}
}

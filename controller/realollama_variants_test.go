package controller_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/ollamatest"
)

// realProxy stands between the client and a real Ollama's /v1 as the
// proxies real users put there do: it changes the request or the reply
// the way a server variant would, and passes the rest through.
type realProxy struct {
	// unstream asks Ollama for a whole reply whatever the client asked
	// (a proxy that does not stream).
	unstream bool
	// refuse refuses a request whose body holds the key, naming it (a
	// strict validator in front).
	refuse []string
	// keepAlives adds comments between the events and drops [DONE].
	keepAlives bool
}

func (p realProxy) start(t *testing.T, ollama string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if r.URL.Path == "/v1/chat/completions" && json.Unmarshal(body, &req) == nil {
			for _, key := range p.refuse {
				if _, ok := req[key]; ok {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					_, _ = io.WriteString(w, `{"error":{"message":"Unrecognized request argument supplied: `+key+`","type":"invalid_request_error"}}`)
					return
				}
			}
			if p.unstream {
				req["stream"] = false
				delete(req, "stream_options")
			}
			body, _ = json.Marshal(req)
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, ollama+r.URL.Path, bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		if !p.keepAlives {
			_, _ = io.Copy(w, resp.Body)
			return
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if line == "data: [DONE]" {
				continue
			}
			if strings.HasPrefix(line, "data: ") {
				_, _ = io.WriteString(w, ": keep-alive\n\n")
			}
			_, _ = io.WriteString(w, line+"\n")
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRealOllamaOpenAIVariants: the reply variants of the fake, made from
// a real server's replies — Ollama v0.11.4's /v1 with the tiny model —
// by proxies that do what real servers and proxies do: answer whole,
// refuse stream_options, refuse every JSON mode, add keep-alives and drop
// [DONE]. Each call finishes, with the note its variant calls for.
func TestRealOllamaOpenAIVariants(t *testing.T) {
	ollama := ollamatest.Shared(t)
	schema := []byte(`{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object","properties":{"task":{"type":"string","enum":["image-to-text","text-to-speech"]},"id":{"type":"integer"}},"required":["task","id"]}}},"required":["tasks"]}`)
	for _, tc := range []struct {
		name  string
		proxy realProxy
		notes []string
	}{
		{"direct", realProxy{}, nil},
		{"unstreamed", realProxy{unstream: true}, []string{"one whole chat.completion"}},
		{"stream_options refused", realProxy{refuse: []string{"stream_options"}}, []string{"refused stream_options"}},
		{"no JSON mode", realProxy{refuse: []string{"response_format"}}, []string{"refused the JSON schema", "refused json_object"}},
		{"keep-alives, no [DONE]", realProxy{keepAlives: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctl, err := controller.New(tc.proxy.start(t, ollama)+"/v1", ollamatest.Model, controller.Options{Kind: "openai", Timeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{
				{Role: "system", Content: "You plan tasks. Answer in JSON."}, {Role: "user", Content: "STAGE: PLAN\ncaption the photo"}},
				Format: schema, NumPredict: 24})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("reply %q: done %q, %d prompt tokens, %d reply tokens, notes %q", r.Content, r.DoneReason, r.PromptEvalCount, r.EvalCount, r.Notes)
			if r.DoneReason == "" || r.EvalCount == 0 || len(r.Notes) != len(tc.notes) {
				t.Fatalf("reply %+v", r)
			}
			for i, n := range tc.notes {
				if !strings.Contains(r.Notes[i], n) {
					t.Errorf("note %d: %q, want %q", i, r.Notes[i], n)
				}
			}
		})
	}
}

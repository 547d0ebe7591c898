package controller_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakeopenai"
)

// The replies real OpenAI-compatible servers and proxies give, beyond
// vLLM's and llama-server's own: each is a switch of the fake, and each
// must give the stage its reply (or name the real cause).

const planReply = `{"tasks": [{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "cat.png"}}]}`

func planCall(onToken func(string)) controller.ChatCall {
	return controller.ChatCall{Messages: []controller.Message{{Role: "system", Content: "You plan."}, {Role: "user", Content: "STAGE: PLAN\ncaption cat.png"}},
		Format: planSchema, NumPredict: 500, OnToken: onToken}
}

func quirky(t *testing.T, engine fakeopenai.Engine, q fakeopenai.Quirks, models ...string) *fakeopenai.Controller {
	t.Helper()
	srv := fakeopenai.NewController(t, engine, append([]string{"qwen3-8b"}, models...)...)
	srv.SetQuirks(q)
	srv.OnChat(func(context.Context, *fakeopenai.ChatRequest) fakeopenai.ChatReply {
		return fakeopenai.ChatReply{Content: planReply}
	})
	return srv
}

// A server (or a proxy) that ignores stream: true and answers with one
// whole chat.completion: the reply arrives at once, with its usage and its
// finish, and a note says why nothing streamed — not "closed the reply
// stream before it finished". However the proxy labels it.
func TestOpenAIUnstreamedReply(t *testing.T) {
	for _, engine := range []fakeopenai.Engine{fakeopenai.VLLM, fakeopenai.LlamaServer} {
		for _, label := range []string{"", "text/event-stream", "text/plain; charset=utf-8"} {
			t.Run(engine.String()+"/"+label, func(t *testing.T) {
				srv := quirky(t, engine, fakeopenai.Quirks{Unstreamed: true, ContentType: label})
				var streamed strings.Builder
				reply, err := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{}).Chat(context.Background(), planCall(func(s string) { streamed.WriteString(s) }))
				if err != nil {
					t.Fatal(err)
				}
				if reply.Content != planReply || streamed.String() != planReply || reply.DoneReason != "stop" {
					t.Fatalf("reply %q (streamed %q), done %q", reply.Content, streamed.String(), reply.DoneReason)
				}
				if reply.PromptEvalCount == 0 || reply.EvalCount != len(strings.Fields(planReply)) {
					t.Errorf("usage of the whole reply: prompt %d, reply %d tokens", reply.PromptEvalCount, reply.EvalCount)
				}
				if len(reply.Notes) != 1 || !strings.Contains(reply.Notes[0], "one whole chat.completion, not a stream") {
					t.Errorf("notes %q", reply.Notes)
				}
			})
		}
	}
	// Cut by the token bound, whole: the finish says so.
	srv := quirky(t, fakeopenai.VLLM, fakeopenai.Quirks{Unstreamed: true})
	call := planCall(nil)
	call.NumPredict = 3
	reply, err := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{}).Chat(context.Background(), call)
	if err != nil || reply.DoneReason != "length" || !reply.Truncated() {
		t.Fatalf("a whole reply cut at 3 tokens: %+v %v", reply, err)
	}
}

// A stream with no usage (a server that does not know include_usage): the
// streamed chunks are the reply's count, and nothing fails.
func TestOpenAIStreamWithoutUsage(t *testing.T) {
	for _, engine := range []fakeopenai.Engine{fakeopenai.VLLM, fakeopenai.LlamaServer} {
		srv := quirky(t, engine, fakeopenai.Quirks{NoUsage: true})
		chunks := 0
		reply, err := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{}).Chat(context.Background(), planCall(func(string) { chunks++ }))
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		if reply.Content != planReply || reply.DoneReason != "stop" || reply.EvalCount != chunks || reply.PromptEvalCount != 0 || len(reply.Notes) != 0 {
			t.Fatalf("%s: reply %+v after %d chunks", engine, reply, chunks)
		}
	}
}

// A server that refuses stream_options: the call is made again without
// them, once, with a note; later calls leave them out at once.
func TestOpenAIStreamOptionsRefused(t *testing.T) {
	srv := quirky(t, fakeopenai.VLLM, fakeopenai.Quirks{RefuseStreamOptions: true})
	ctl := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{})
	reply, err := ctl.Chat(context.Background(), planCall(nil))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != planReply || len(reply.Notes) != 1 || !strings.Contains(reply.Notes[0], "refused stream_options (HTTP 400: Unrecognized request argument supplied: stream_options)") {
		t.Fatalf("reply %+v", reply)
	}
	for range 2 {
		if reply, err = ctl.Chat(context.Background(), planCall(nil)); err != nil || len(reply.Notes) != 0 || reply.Content != planReply {
			t.Fatalf("a later call: %+v %v", reply, err)
		}
	}
	if r := srv.Refusals(); len(r) != 1 {
		t.Fatalf("refused %d times, want once: %q", len(r), r)
	}
	for _, req := range srv.Requests() {
		if req.IncludeUsage {
			t.Fatal("stream_options sent after the refusal")
		}
	}
}

// A server with no JSON mode refuses the schema and json_object: the call
// goes out a third time as plain text with the schema in the prompt. The
// steps are remembered per model: the same model starts at plain text, an
// other model at the schema.
func TestOpenAIJSONModeRefusedFallsBackToPrompt(t *testing.T) {
	srv := quirky(t, fakeopenai.VLLM, fakeopenai.Quirks{RefuseJSONMode: true}, "llama-3.1-8b")
	ctl := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{})
	reply, err := ctl.Chat(context.Background(), planCall(nil))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != planReply || len(reply.Notes) != 2 ||
		!strings.Contains(reply.Notes[0], "refused the JSON schema (HTTP 400: Unrecognized request argument supplied: response_format); asked for json_object") ||
		!strings.Contains(reply.Notes[1], "refused json_object (HTTP 400") || !strings.Contains(reply.Notes[1], "plain text with the schema in the prompt") {
		t.Fatalf("reply %q, notes %q", reply.Content, reply.Notes)
	}
	served := srv.Requests()
	last := served[len(served)-1]
	user := last.Messages[len(last.Messages)-1]
	if last.Format != "" || !strings.HasPrefix(user.Text, "STAGE: PLAN\ncaption cat.png") || !strings.Contains(user.Text, string(planSchema)) {
		t.Fatalf("the plain request: format %q, user message %q", last.Format, user.Text)
	}
	if reply, err = ctl.Chat(context.Background(), planCall(nil)); err != nil || len(reply.Notes) != 1 ||
		!strings.Contains(reply.Notes[0], "asked for plain text with the schema in the prompt: the server refused json_object before") {
		t.Fatalf("second call: %+v %v", reply, err)
	}
	if r := srv.Refusals(); len(r) != 2 {
		t.Fatalf("the model's second call was refused again: %d refusals", len(r))
	}
	if _, err := ctl.WithModel("llama-3.1-8b").Chat(context.Background(), planCall(nil)); err != nil {
		t.Fatal(err)
	}
	if r := srv.Refusals(); len(r) != 4 {
		t.Fatalf("another model should start at the schema: %d refusals in all, want 4", len(r))
	}
}

// A 400 that is not about the format (a prompt too long) is not a schema
// refusal: one call, the server's words, no fallback.
func TestOpenAIOtherRefusalIsNotAFormatRefusal(t *testing.T) {
	srv := quirky(t, fakeopenai.VLLM, fakeopenai.Quirks{})
	srv.OnChat(func(context.Context, *fakeopenai.ChatRequest) fakeopenai.ChatReply {
		return fakeopenai.ChatReply{Status: 400, Error: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."}
	})
	reply, err := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{}).Chat(context.Background(), planCall(nil))
	if err == nil || !strings.Contains(err.Error(), "maximum context length") || len(reply.Notes) != 0 || len(srv.Requests()) != 1 {
		t.Fatalf("err %v, notes %q, %d requests", err, reply.Notes, len(srv.Requests()))
	}
}

// SSE comments, pings and keep-alives between the chunks, and a stream
// that ends at EOF without [DONE]: the same reply as a clean stream.
func TestOpenAIStreamKeepAlivesAndNoDone(t *testing.T) {
	for name, q := range map[string]fakeopenai.Quirks{
		"keep-alives": {KeepAlives: true}, "no [DONE]": {NoDone: true}, "both": {KeepAlives: true, NoDone: true},
		"mislabelled": {ContentType: "application/json"},
	} {
		for _, engine := range []fakeopenai.Engine{fakeopenai.VLLM, fakeopenai.LlamaServer} {
			srv := quirky(t, engine, q)
			chunks := 0
			reply, err := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{}).Chat(context.Background(), planCall(func(string) { chunks++ }))
			if err != nil {
				t.Fatalf("%s, %s: %v", name, engine, err)
			}
			if reply.Content != planReply || reply.DoneReason != "stop" || chunks != len(strings.Fields(planReply)) || reply.PromptEvalCount == 0 || len(reply.Notes) != 0 {
				t.Fatalf("%s, %s: reply %+v after %d chunks", name, engine, reply, chunks)
			}
		}
	}
}

// A stream that ends with [DONE] but no finish_reason finished; one that
// ends with neither was cut.
func TestOpenAIStreamEnd(t *testing.T) {
	chunk := `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"done"},"finish_reason":null}]}` + "\n\n"
	for _, tc := range []struct {
		body, want string
	}{
		{chunk + "data: [DONE]\n\n", ""},
		{chunk, "closed the reply stream before it finished"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, tc.body)
		}))
		reply, err := newOpenAI(t, srv.URL, "m", controller.Options{}).Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}})
		srv.Close()
		switch {
		case tc.want == "" && (err != nil || reply.Content != "done" || reply.DoneReason != "stop"):
			t.Errorf("ended by [DONE]: %+v %v", reply, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("cut: %v", err)
		}
	}
}

// An answer that is neither a stream nor a chat.completion is named by
// its status, content type and first bytes; an error object in a 200 is
// the server's failure in its own words.
func TestOpenAINotAReplyNamesTheCause(t *testing.T) {
	for _, tc := range []struct {
		ct, body string
		want     []string
		wrong    bool
	}{
		{"text/html; charset=utf-8", "<html><body>Bad gateway, try later</body></html>", []string{"HTTP 200", "text/html", "Bad gateway, try later"}, true},
		{"application/json", `{"detail":"route moved to /v2"}`, []string{"HTTP 200", "application/json", "route moved to /v2"}, true},
		{"", "", []string{"HTTP 200", "an empty body"}, true},
		{"text/event-stream", "data: <not json>\n\n", []string{"a streamed event is not OpenAI's JSON", "<not json>"}, true},
		{"application/json", `{"error":{"message":"model is loading, retry in 30s","type":"server_error"}}`, []string{"failed mid-reply: model is loading, retry in 30s"}, false},
		{"text/event-stream", "event: error\ndata: {\"message\":\"upstream timed out\"}\n\n", []string{"failed mid-reply: upstream timed out"}, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.ct != "" {
				w.Header().Set("Content-Type", tc.ct)
			} else {
				w.Header()["Content-Type"] = nil
			}
			_, _ = io.WriteString(w, tc.body)
		}))
		_, err := newOpenAI(t, srv.URL, "m", controller.Options{}).Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}})
		srv.Close()
		if err == nil || errors.Is(err, controller.ErrWrongServer) != tc.wrong {
			t.Errorf("%q: %v (wrong server: %v)", tc.body, err, errors.Is(err, controller.ErrWrongServer))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v\nshould name %q", tc.body, err, w)
			}
		}
	}
}

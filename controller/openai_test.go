package controller_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeopenai"
)

func newOpenAI(t *testing.T, url, model string, opts controller.Options) *controller.Controller {
	t.Helper()
	opts.Kind, opts.Timeout = "openai", 10*time.Second
	ctl, err := controller.New(url, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

var planSchema = json.RawMessage(`{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object"}}},"required":["tasks"],"additionalProperties":false}`)

// A streamed call on each engine: the tokens arrive in order, the schema
// goes out as a strict json_schema, and the usage — wherever the engine puts
// it — gives the token counts, the prefix cache's report the prefilled part.
func TestOpenAIChatStreamsWithSchemaAndUsage(t *testing.T) {
	for _, engine := range []fakeopenai.Engine{fakeopenai.VLLM, fakeopenai.LlamaServer} {
		t.Run(engine.String(), func(t *testing.T) {
			srv := fakeopenai.NewController(t, engine, "qwen3-8b")
			srv.OnChat(func(_ context.Context, req *fakeopenai.ChatRequest) fakeopenai.ChatReply {
				return fakeopenai.ChatReply{Content: `{"tasks": [{"task": "image-to-text", "id": 0}]}`}
			})
			ctl := newOpenAI(t, srv.URL+"/v1", "qwen3-8b", controller.Options{})
			head := controller.Message{Role: "system", Content: strings.Repeat("the stable head of every call. ", 40)}
			var tokens []string
			var reply controller.Reply
			for i := range 2 {
				var err error
				reply, err = ctl.Chat(context.Background(), controller.ChatCall{
					Messages: []controller.Message{head, {Role: "user", Content: "STAGE: PLAN\ncaption it " + strings.Repeat("x", i)}},
					Format:   planSchema, NumPredict: 200, OnToken: func(s string) { tokens = append(tokens, s) }})
				if err != nil {
					t.Fatal(err)
				}
			}
			if reply.Content != `{"tasks": [{"task": "image-to-text", "id": 0}]}` || len(tokens) < 4 || reply.DoneReason != "stop" {
				t.Fatalf("reply %+v after %d tokens", reply, len(tokens))
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			if last.Format != "json_schema" || !last.Strict || string(last.Schema) != string(planSchema) || !last.Stream || last.MaxTokens != 200 {
				t.Fatalf("request %+v", last)
			}
			if engine == fakeopenai.VLLM && !last.IncludeUsage {
				t.Error("stream_options.include_usage was not asked for: vLLM would send no usage")
			}
			if reply.PromptEvalCount == 0 || reply.EvalCount == 0 || last.CachedTokens == 0 ||
				reply.Prefilled != reply.PromptEvalCount-last.CachedTokens || len(reply.Notes) != 0 {
				t.Fatalf("usage: prompt %d, prefilled %d (server cached %d), reply %d tokens, notes %q",
					reply.PromptEvalCount, reply.Prefilled, last.CachedTokens, reply.EvalCount, reply.Notes)
			}
		})
	}
}

// A server that refuses the schema gets the call again as json_object,
// once, with a note for --debug; later calls ask for json_object at once.
func TestOpenAISchemaRefusedFallsBackToJSONObject(t *testing.T) {
	for _, engine := range []fakeopenai.Engine{fakeopenai.VLLM, fakeopenai.LlamaServer} {
		t.Run(engine.String(), func(t *testing.T) {
			srv := fakeopenai.NewController(t, engine, "qwen3-8b")
			srv.RejectSchemas(true)
			srv.OnChat(func(context.Context, *fakeopenai.ChatRequest) fakeopenai.ChatReply {
				return fakeopenai.ChatReply{Content: "```json\n{\"tasks\": []}\n```"}
			})
			ctl := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{}) // /v1 is added
			call := controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "plan, answer in JSON"}}, Format: planSchema}
			reply, err := ctl.Chat(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Content != "```json\n{\"tasks\": []}\n```" || len(reply.Notes) != 1 ||
				!strings.Contains(reply.Notes[0], "refused the JSON schema (HTTP 400") || !strings.Contains(reply.Notes[0], "json_object") {
				t.Fatalf("reply %+v", reply)
			}
			if reply, err = ctl.Chat(context.Background(), call); err != nil || len(reply.Notes) != 1 || !strings.Contains(reply.Notes[0], "refused the JSON schema before") {
				t.Fatalf("second call: %+v %v", reply, err)
			}
			var formats []string
			for _, r := range srv.Requests() {
				formats = append(formats, r.Format)
			}
			if !slices.Equal(formats, []string{"json_object", "json_object"}) {
				// The refused json_schema request is not recorded: the
				// engine refused it before serving.
				t.Fatalf("formats served %v", formats)
			}
		})
	}
}

// Images go to a vision model as image_url data URLs after the text.
func TestOpenAIImagesAsDataURLs(t *testing.T) {
	srv := fakeopenai.NewController(t, fakeopenai.VLLM, "qwen2.5-vl")
	ctl := newOpenAI(t, srv.URL+"/v1", "qwen2.5-vl", controller.Options{Capabilities: []string{"vision"}})
	if !ctl.CanSee(context.Background()) {
		t.Fatal("controller.capabilities: [vision] should let the stages attach images")
	}
	png := fakehf.PNG(12, 7)
	if _, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{
		{Role: "system", Content: "head"}, {Role: "user", Content: "what is this?", Images: [][]byte{png}}}}); err != nil {
		t.Fatal(err)
	}
	msg := srv.Requests()[0].Messages[1]
	if msg.Text != "what is this?" || len(msg.Images) != 1 || string(msg.Images[0]) != string(png) {
		t.Fatalf("user message %q with %d images", msg.Text, len(msg.Images))
	}
	if newOpenAI(t, srv.URL, "qwen2.5-vl", controller.Options{}).CanSee(context.Background()) {
		t.Error("without the capability the model should get no images")
	}
}

// /model lists GET /v1/models; /pull is not available for this kind.
func TestOpenAIModelsAndNoPull(t *testing.T) {
	srv := fakeopenai.NewController(t, fakeopenai.VLLM, "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct")
	ctl := newOpenAI(t, srv.URL+"/v1", "Qwen/Qwen3-8B", controller.Options{})
	ms, err := ctl.Models(context.Background())
	if err != nil || len(ms) != 2 || ms[0].Name != "Qwen/Qwen3-8B" {
		t.Fatalf("models %+v %v", ms, err)
	}
	if st := ctl.Check(context.Background()); st.Err != nil || !st.Pulled {
		t.Fatalf("check %+v", st)
	}
	if ctl.CanPull() {
		t.Error("an OpenAI-compatible server cannot pull")
	}
	err = ctl.Pull(context.Background(), "x", nil)
	if !errors.Is(err, controller.ErrCannotPull) || !strings.Contains(err.Error(), "cannot download models") {
		t.Fatalf("pull: %v", err)
	}
}

// Each failure names its fix.
func TestOpenAIErrorsNameTheFix(t *testing.T) {
	ctx := context.Background()
	call := controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}}

	// Nothing listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	st := newOpenAI(t, dead+"/v1", "m", controller.Options{}).Check(ctx)
	want := "The OpenAI-compatible server is not reachable at " + dead + "/v1 — is vLLM (or llama-server, SGLang, LM Studio) running?"
	if !errors.Is(st.Err, controller.ErrUnreachable) || !strings.HasPrefix(st.Err.Error(), want) {
		t.Fatalf("dead server: %v", st.Err)
	}

	// A key wanted and none sent, or the wrong one — in each engine's body.
	for _, engine := range []fakeopenai.Engine{fakeopenai.VLLM, fakeopenai.LlamaServer} {
		srv := fakeopenai.NewController(t, engine, "m")
		srv.RequireKey("sk-right")
		t.Setenv("OPENAI_API_KEY", "sk-for-api.openai.com") // never sent to another server
		_, err := newOpenAI(t, srv.URL, "m", controller.Options{}).Chat(ctx, call)
		if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "set controller.key_env") {
			t.Fatalf("%s, no key: %v", engine, err)
		}
		_, err = newOpenAI(t, srv.URL, "m", controller.Options{Key: "sk-wrong", KeySource: "controller.key_env (VLLM_KEY)"}).Chat(ctx, call)
		if err == nil || !strings.Contains(err.Error(), "refused the API key from controller.key_env (VLLM_KEY)") {
			t.Fatalf("%s, wrong key: %v", engine, err)
		}
		if _, err = newOpenAI(t, srv.URL, "m", controller.Options{Key: "sk-right"}).Chat(ctx, call); err != nil {
			t.Fatalf("%s, right key: %v", engine, err)
		}
		for _, r := range srv.Requests() {
			if strings.Contains(r.Auth, "api.openai.com") {
				t.Fatal("OPENAI_API_KEY from the environment was sent to the controller's server")
			}
		}
	}

	// vLLM serving another model.
	srv := fakeopenai.NewController(t, fakeopenai.VLLM, "served")
	_, err = newOpenAI(t, srv.URL, "other", controller.Options{}).Chat(ctx, call)
	if !errors.Is(err, controller.ErrModelMissing) || !strings.Contains(err.Error(), "model other is not served there — pick one it has with /model") {
		t.Fatalf("unknown model: %v", err)
	}
	st = newOpenAI(t, srv.URL, "other", controller.Options{}).Check(ctx)
	if !errors.Is(st.Err, controller.ErrModelMissing) {
		t.Fatalf("check of an unknown model: %+v", st)
	}

	// A web server, not an OpenAI-compatible one.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		http.NotFound(w, r)
	}))
	defer web.Close()
	st = newOpenAI(t, web.URL, "m", controller.Options{}).Check(ctx)
	if !errors.Is(st.Err, controller.ErrWrongServer) || !strings.Contains(st.Err.Error(), "ending in /v1") {
		t.Fatalf("web server: %v", st.Err)
	}

	// The engine fails mid-reply, and a stream cut without a finish.
	srv.OnChat(func(context.Context, *fakeopenai.ChatRequest) fakeopenai.ChatReply {
		return fakeopenai.ChatReply{Content: "half an answer", StreamError: "CUDA out of memory"}
	})
	ctl := newOpenAI(t, srv.URL, "served", controller.Options{})
	if _, err := ctl.Chat(ctx, call); err == nil || !strings.Contains(err.Error(), "CUDA out of memory") {
		t.Fatalf("mid-stream error: %v", err)
	}
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"par"},"finish_reason":null}]}` + "\n\n"))
	}))
	defer cut.Close()
	if _, err := newOpenAI(t, cut.URL, "m", controller.Options{}).Chat(ctx, call); err == nil || !strings.Contains(err.Error(), "closed the reply stream before it finished") {
		t.Fatalf("cut stream: %v", err)
	}

	// Cancelled while waiting for the first token: the caller's error.
	srv.OnChat(func(context.Context, *fakeopenai.ChatRequest) fakeopenai.ChatReply {
		return fakeopenai.ChatReply{Content: "x", Stall: true}
	})
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := ctl.Chat(cctx, call); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled call: %v", err)
	}
}

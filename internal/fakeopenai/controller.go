package fakeopenai

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/internal/fakeollama"
)

// Engine is the serving engine a Controller fake speaks as: the engines
// differ in their error bodies, in where the usage of a stream comes, and
// in what they say when they cannot honour a JSON schema.
type Engine int

const (
	// VLLM is vLLM's OpenAI-compatible server: errors as
	// {"error":{"message","type":"BadRequestError","param","code":400}};
	// a stream's usage in a chunk of its own with no choices, sent only
	// when stream_options.include_usage asks; automatic prefix caching in
	// blocks of 16 tokens over every earlier prompt; a schema its grammar
	// backend cannot compile refused with xgrammar's message.
	VLLM Engine = iota
	// LlamaServer is llama.cpp's llama-server: errors as
	// {"error":{"code":400,"message","type":"invalid_request_error"}}; the
	// usage (and its timings) in the chunk that carries finish_reason,
	// always; one prompt cache per slot (cache_prompt); any model name
	// accepted (it serves the one it loaded); a build without json_schema
	// support refuses that response_format type.
	LlamaServer
)

func (e Engine) String() string {
	if e == LlamaServer {
		return "llama-server"
	}
	return "vLLM"
}

// ChatRequest is one decoded /v1/chat/completions request.
type ChatRequest struct {
	Model        string
	Messages     []ChatMessage
	Stream       bool
	IncludeUsage bool
	// MaxTokens is max_tokens or max_completion_tokens (0: unset).
	MaxTokens   int
	Temperature *float64
	// Format is response_format's type ("" when absent): text,
	// json_object or json_schema; Schema and SchemaName are json_schema's
	// schema and name, Strict its strict flag.
	Format     string
	Schema     json.RawMessage
	SchemaName string
	Strict     bool
	// Auth is the Authorization header.
	Auth string
	// Prompt is the request rendered as the fake's tokens are counted.
	Prompt string
	// CachedTokens is how many prompt tokens the prefix cache held.
	CachedTokens int
}

// ChatMessage is one message of a request: its text parts joined and its
// image_url data URLs decoded.
type ChatMessage struct {
	Role   string
	Text   string
	Images [][]byte
}

// ChatReply is what the fake answers one chat request with.
type ChatReply struct {
	// Content is streamed in word-sized chunks unless Chunks splits it.
	Content string
	Chunks  []string
	// FinishReason is "stop" unless set ("length" for a cut-off reply).
	FinishReason string
	// ChunkDelay is waited before every chunk (on top of the latency
	// model's decode step).
	ChunkDelay time.Duration
	// Stall holds the stream open after the chunks, without a finish,
	// until the client goes away.
	Stall bool
	// Status, when 400 or more, answers that HTTP status with the engine's
	// error body carrying Error.
	Status int
	Error  string
	// StreamError, with Status 0, fails the stream after the chunks: the
	// engine's error object as an SSE data line, then [DONE].
	StreamError string
	// Stream, when set, supplies the chunks live instead: each string is
	// sent (and flushed) as it comes, until the channel closes; then
	// StreamEnd, if set, gives the finish reason and a StreamError.
	Stream    <-chan string
	StreamEnd func() (finish, streamError string)
	// StreamReasoning sends Stream's strings as delta.reasoning_content
	// instead of content, as vLLM's and SGLang's reasoning parsers do.
	StreamReasoning bool
	// Raw, when set, is written to the event stream verbatim after the
	// first chunk, each string as it comes, until the channel closes:
	// comments, pings and events a test shapes itself.
	Raw <-chan string
}

// Latency models a serving engine's time: slots serve requests at once
// (the others queue, first come first served, as vLLM's scheduler and
// llama-server's slots do), a prompt is prefilled at a cost per thousand
// tokens not in the prefix cache, and every generated token costs a decode
// step.
type Latency struct {
	FirstToken  time.Duration
	PerToken    time.Duration
	PerKPrefill time.Duration
}

// ControllerStats counts what the fake served, for tests and benchmarks.
type ControllerStats struct {
	Calls int
	// PeakActive is the most requests generating at once; PeakQueued the
	// most waiting for a slot.
	PeakActive, PeakQueued int
	PromptTokens           int
	CachedTokens           int
	// Busy is the time requests held slots, summed: with Calls, what the
	// engine spent per call; against slots × wall time, how busy it was.
	Busy time.Duration
}

// Controller is a protocol-faithful fake of an OpenAI-compatible serving
// engine as Chorus's controller meets it: GET /v1/models, and
// POST /v1/chat/completions streamed as server-sent events ending with
// "data: [DONE]" (or answered whole), response_format honoured or refused
// in the engine's own words, usage (with prompt_tokens_details.
// cached_tokens from a real prefix cache) where the engine puts it, and
// slots that make the requests beyond them wait. Quirks switch on the
// ways other servers and proxies depart from the engine's replies.
type Controller struct {
	// URL is the server's base URL, without /v1.
	URL    string
	engine Engine

	mu            sync.Mutex
	models        []string
	key           string
	rejectSchemas bool
	quirks        Quirks
	refusals      []string
	onChat        func(ctx context.Context, req *ChatRequest) ChatReply
	reqs          []ChatRequest
	forget        bool
	latency       Latency
	slots         chan struct{}
	active        int
	queued        int
	stats         ControllerStats
	// cache is the prompts the prefix cache holds, newest last.
	cache []string
}

// NewController starts a fake engine serving models (llama-server lists
// its one model but answers to any name), closed when the test ends.
func NewController(t testing.TB, engine Engine, models ...string) *Controller {
	s := &Controller{engine: engine, models: models}
	ts := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	s.URL = ts.URL
	return s
}

// OnChat sets the responder; without one the fake answers "ok".
func (s *Controller) OnChat(fn func(ctx context.Context, req *ChatRequest) ChatReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChat = fn
}

// RequireKey makes every route demand "Authorization: Bearer key", as
// vLLM's and llama-server's --api-key do.
func (s *Controller) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// RejectSchemas makes the engine refuse response_format json_schema: vLLM
// as when xgrammar cannot compile the schema, llama-server as a build that
// knows only text and json_object.
func (s *Controller) RejectSchemas(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectSchemas = on
}

// SetSlots serves at most k requests at once (0: unbounded).
func (s *Controller) SetSlots(k int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots = nil
	if k > 0 {
		s.slots = make(chan struct{}, k)
	}
}

// SetLatency sets the time model (the zero Latency answers at once).
func (s *Controller) SetLatency(l Latency) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = l
}

// Requests returns the chat requests received so far, oldest first.
func (s *Controller) Requests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// ForgetRequests stops recording requests, for benchmarks that measure
// the memory of the client in the same process.
func (s *Controller) ForgetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
	s.forget = true
}

// Stats returns the counts so far.
func (s *Controller) Stats() ControllerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// engineError writes the engine's error body.
func (s *Controller) engineError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(s.errorBody(status, msg))
}

func (s *Controller) errorBody(status int, msg string) map[string]any {
	if s.engine == LlamaServer {
		typ := "invalid_request_error"
		switch status {
		case http.StatusUnauthorized:
			typ = "authentication_error"
		case http.StatusNotFound:
			typ = "not_found_error"
		case http.StatusServiceUnavailable:
			typ = "unavailable_error"
		}
		if status >= 500 && status != http.StatusServiceUnavailable {
			typ = "server_error"
		}
		return map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}}
	}
	typ := "BadRequestError"
	switch {
	case status == http.StatusNotFound:
		typ = "NotFoundError"
	case status >= 500:
		typ = "InternalServerError"
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": status}}
}

func (s *Controller) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		if s.engine == VLLM {
			// vLLM's --api-key middleware answers before any route.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":"Unauthorized"}`)
			return
		}
		s.engineError(w, http.StatusUnauthorized, "Invalid API Key")
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.mu.Lock()
		models := slices.Clone(s.models)
		s.mu.Unlock()
		data := make([]map[string]any, 0, len(models))
		for _, m := range models {
			data = append(data, map[string]any{"id": m, "object": "model", "created": 1700000000, "owned_by": strings.ToLower(s.engine.String())})
		}
		writeJSON(w, map[string]any{"object": "list", "data": data})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r)
	default:
		if s.engine == VLLM {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"detail":"Not Found"}`)
			return
		}
		s.engineError(w, http.StatusNotFound, "File Not Found")
	}
}

// decodeChat reads a request as the engines do and refuses what they
// refuse, with their messages.
func (s *Controller) decodeChat(r *http.Request) (*ChatRequest, int, string) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var in struct {
		Model         string            `json:"model"`
		Messages      []json.RawMessage `json:"messages"`
		Stream        bool              `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		MaxTokens           *int     `json:"max_tokens"`
		MaxCompletionTokens *int     `json:"max_completion_tokens"`
		Temperature         *float64 `json:"temperature"`
		ResponseFormat      *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
				Strict *bool           `json:"strict"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if mt != "application/json" {
		return nil, http.StatusBadRequest, "Content-Type must be application/json"
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&in); err != nil {
		return nil, http.StatusBadRequest, "JSON decode error: " + err.Error()
	}
	req := &ChatRequest{Model: in.Model, Stream: in.Stream, Temperature: in.Temperature, Auth: r.Header.Get("Authorization")}
	req.IncludeUsage = in.StreamOptions != nil && in.StreamOptions.IncludeUsage
	if in.StreamOptions != nil && !in.Stream {
		if s.engine == VLLM {
			return nil, http.StatusBadRequest, "Stream options can only be defined when `stream=True`."
		}
	}
	for _, p := range []*int{in.MaxTokens, in.MaxCompletionTokens} {
		if p != nil {
			if *p < 1 {
				return nil, http.StatusBadRequest, fmt.Sprintf("max_tokens must be at least 1, got %d.", *p)
			}
			req.MaxTokens = *p
		}
	}
	if rf := in.ResponseFormat; rf != nil {
		req.Format = rf.Type
		switch rf.Type {
		case "", "text", "json_object":
		case "json_schema":
			if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
				return nil, http.StatusBadRequest, "response_format.json_schema.schema is required when type is json_schema"
			}
			if s.engine == VLLM && rf.JSONSchema.Name == "" {
				return nil, http.StatusBadRequest, "1 validation error for ChatCompletionRequest\nresponse_format.json_schema.name\n  Field required"
			}
			req.Schema, req.SchemaName = rf.JSONSchema.Schema, rf.JSONSchema.Name
			req.Strict = rf.JSONSchema.Strict != nil && *rf.JSONSchema.Strict
		default:
			if s.engine == LlamaServer {
				return nil, http.StatusBadRequest, `response_format type must be one of "text" or "json_object", but got: ` + rf.Type
			}
			return nil, http.StatusBadRequest, "1 validation error for ChatCompletionRequest\nresponse_format.type\n  Input should be 'text', 'json_object' or 'json_schema'"
		}
	}
	if len(in.Messages) == 0 {
		if s.engine == LlamaServer {
			return nil, http.StatusBadRequest, "'messages' is required"
		}
		return nil, http.StatusBadRequest, "1 validation error for ChatCompletionRequest\nmessages\n  Field required"
	}
	for _, raw := range in.Messages {
		msg, err := decodeMessage(raw)
		if err != nil {
			return nil, http.StatusBadRequest, err.Error()
		}
		req.Messages = append(req.Messages, msg)
	}
	s.mu.Lock()
	models, reject, quirks := s.models, s.rejectSchemas, s.quirks
	s.mu.Unlock()
	if status, msg := quirks.quirkRefusal(req, in.StreamOptions != nil); status != 0 {
		return nil, status, msg
	}
	if s.engine == VLLM && !slices.Contains(models, req.Model) {
		return nil, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model)
	}
	if reject && req.Format == "json_schema" {
		if s.engine == LlamaServer {
			return nil, http.StatusBadRequest, `response_format type must be one of "text" or "json_object", but got: json_schema`
		}
		return nil, http.StatusBadRequest, "The provided JSON schema contains features not supported by xgrammar."
	}
	return req, 0, ""
}

func decodeMessage(raw json.RawMessage) (ChatMessage, error) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return ChatMessage{}, fmt.Errorf("message: %w", err)
	}
	if m.Role != "system" && m.Role != "user" && m.Role != "assistant" && m.Role != "tool" && m.Role != "developer" {
		return ChatMessage{}, fmt.Errorf("unknown message role %q", m.Role)
	}
	out := ChatMessage{Role: m.Role}
	var text string
	if err := json.Unmarshal(m.Content, &text); err == nil {
		out.Text = text
		return out, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return ChatMessage{}, fmt.Errorf("message content must be a string or an array of parts")
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			out.Text += p.Text
		case "image_url":
			if p.ImageURL == nil {
				return ChatMessage{}, fmt.Errorf("image_url part without image_url")
			}
			data, err := decodeDataURL(p.ImageURL.URL)
			if err != nil {
				return ChatMessage{}, fmt.Errorf("image_url: %w", err)
			}
			out.Images = append(out.Images, data)
		default:
			return ChatMessage{}, fmt.Errorf("unsupported content part type %q", p.Type)
		}
	}
	return out, nil
}

// renderPrompt is the text a request is prefilled as, for the token counts
// and the prefix cache: each message under its role, an image as a fixed
// block (576 tokens) keyed by its bytes.
func renderPrompt(req *ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "<|%s|>\n%s\n", m.Role, m.Text)
		for _, img := range m.Images {
			fmt.Fprintf(&b, "<|image %s|>%s\n", base64.StdEncoding.EncodeToString(img[:min(len(img), 48)]), strings.Repeat("#", 576*4))
		}
		b.WriteString("<|end|>\n")
	}
	return b.String()
}

// cachedTokens looks prompt up in the prefix cache and remembers it: vLLM
// shares blocks of 16 tokens between all requests; llama-server reuses the
// most similar slot's last prompt.
func (s *Controller) cachedTokens(prompt string) int {
	best := 0
	for _, p := range s.cache {
		best = max(best, commonPrefix(p, prompt))
	}
	tokens := best / 4
	keep := 64
	if s.engine == VLLM {
		tokens -= tokens % 16
	} else {
		keep = max(1, cap(s.slots))
	}
	// A full prompt is never all cached: the last token is always computed.
	tokens = min(tokens, promptTokens(prompt)-1)
	s.cache = append(s.cache, prompt)
	if len(s.cache) > keep {
		s.cache = s.cache[len(s.cache)-keep:]
	}
	return max(tokens, 0)
}

func promptTokens(prompt string) int { return (len(prompt) + 3) / 4 }

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// acquire waits for a slot (or the client to leave).
func (s *Controller) acquire(ctx context.Context) (release func(), ok bool) {
	s.mu.Lock()
	slots := s.slots
	s.mu.Unlock()
	if slots != nil {
		select {
		case slots <- struct{}{}:
		default:
			s.mu.Lock()
			s.queued++
			s.stats.PeakQueued = max(s.stats.PeakQueued, s.queued)
			s.mu.Unlock()
			got := true
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				got = false
			}
			s.mu.Lock()
			s.queued--
			s.mu.Unlock()
			if !got {
				return nil, false
			}
		}
	}
	s.mu.Lock()
	s.active++
	s.stats.PeakActive = max(s.stats.PeakActive, s.active)
	s.mu.Unlock()
	start := time.Now()
	return func() {
		s.mu.Lock()
		s.active--
		s.stats.Busy += time.Since(start)
		s.mu.Unlock()
		if slots != nil {
			<-slots
		}
	}, true
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Controller) chat(w http.ResponseWriter, r *http.Request) {
	req, status, msg := s.decodeChat(r)
	if status != 0 {
		s.mu.Lock()
		s.refusals = append(s.refusals, msg)
		s.mu.Unlock()
		s.engineError(w, status, msg)
		return
	}
	ctx := r.Context()
	release, ok := s.acquire(ctx)
	if !ok {
		return
	}
	defer release()
	req.Prompt = renderPrompt(req)
	s.mu.Lock()
	req.CachedTokens = s.cachedTokens(req.Prompt)
	prompt := promptTokens(req.Prompt)
	s.stats.Calls++
	s.stats.PromptTokens += prompt
	s.stats.CachedTokens += req.CachedTokens
	if !s.forget {
		s.reqs = append(s.reqs, *req)
	}
	onChat, lat, quirks := s.onChat, s.latency, s.quirks
	s.mu.Unlock()
	reply := ChatReply{Content: "ok"}
	if onChat != nil {
		reply = onChat(ctx, req)
	}
	if reply.Status >= 400 {
		s.engineError(w, reply.Status, reply.Error)
		return
	}
	prefill := time.Duration(prompt-req.CachedTokens)*lat.PerKPrefill/1000 + max(0, lat.FirstToken-lat.PerToken)
	if !sleepCtx(ctx, prefill) {
		return
	}
	a := &answer{req: req, reply: reply, quirks: quirks, perToken: lat.PerToken + reply.ChunkDelay, prompt: prompt,
		id: fmt.Sprintf("chatcmpl-%d", time.Now().UnixNano()), chunks: reply.Chunks, finish: cmp.Or(reply.FinishReason, "stop")}
	if a.chunks == nil {
		a.chunks = wordChunks(reply.Content)
	}
	if req.MaxTokens > 0 && len(a.chunks) > req.MaxTokens {
		a.chunks, a.finish = a.chunks[:req.MaxTokens], "length"
	}
	if !req.Stream || quirks.Unstreamed {
		s.whole(ctx, w, a)
		return
	}
	s.stream(ctx, w, a)
}

// wordChunks splits text into word-sized chunks (each word with the space
// before it), as a tokenizer streams it.
func wordChunks(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' || text[i] == '\n' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// SchemaError checks a reply the fake was scripted with against the schema
// the request sent, as a guided-decoding engine would never break it; ""
// when the request sent no schema or the reply follows it.
func (r *ChatRequest) SchemaError(content string) string {
	if r.Format != "json_schema" {
		return ""
	}
	if err := fakeollama.Validate(r.Schema, []byte(content)); err != nil {
		return err.Error()
	}
	return ""
}

package controller

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/text"
)

func init() {
	Register("openai", func(s Server) (Backend, error) { return newOpenAIBackend(s), nil })
}

// openaiBackend reaches an OpenAI-compatible server — vLLM, SGLang,
// llama.cpp's llama-server, LM Studio, Ollama's /v1, a hosted endpoint —
// through OpenAI's official Go client. controller.host is the server's base
// URL, ending in /v1.
//
// A stage's JSON schema goes out as response_format json_schema (strict),
// which vLLM's and llama-server's guided decoding honour. A server that
// refuses it gets the call again with json_object, once, and the reply is
// repaired by the stages' parser as any other; the backend remembers the
// refusal for the model, so later calls ask for json_object at once, and
// says so in a note (--debug). usage, with prompt_tokens_details.
// cached_tokens where the server reports it, fills the reply's token
// counts.
type openaiBackend struct {
	client openai.Client
	base   string
	key    bool
	source string
	caps   []string

	mu sync.Mutex
	// noSchema holds the models whose server refused a JSON schema, with
	// the server's words.
	noSchema map[string]string
}

func newOpenAIBackend(s Server) *openaiBackend {
	base := strings.TrimRight(s.URL.String(), "/")
	if strings.Trim(s.URL.Path, "/") == "" {
		base += "/v1" // the servers' OpenAI-compatible routes live there
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		// The key, and the prompt in a POST's body, go only to the
		// configured origin: a redirect elsewhere is refused, with where it
		// pointed (the client's own origin check would read as a dead
		// server).
		option.WithHTTPClient(scope.Credentialed(s.HTTP)),
		// The controller's own retry is the user's: a refusal or a dead
		// server is said at once, with its fix.
		option.WithMaxRetries(0),
		// The client reads OPENAI_API_KEY, OPENAI_ORG_ID, … from the
		// environment; none of that is for this server unless configured.
		option.WithAPIKey(s.Key),
		option.WithMiddleware(envHeaders(s.Key != "")),
		option.WithMiddleware(serverErrors),
	}
	return &openaiBackend{client: openai.NewClient(opts...), base: base, key: s.Key != "", source: s.KeySource,
		caps: s.Capabilities, noSchema: map[string]string{}}
}

// Hints are the words of an OpenAI-compatible server's failures.
func (o *openaiBackend) Hints() Hints {
	return Hints{
		Server:  "the OpenAI-compatible server",
		Tag:     "openai",
		Start:   "is vLLM (or llama-server, SGLang, LM Studio) running? Start it, or set controller.host to its URL ending in /v1",
		Point:   "set controller.host to the server's OpenAI-compatible URL, ending in /v1",
		Missing: "not served there",
	}
}

// envHeaders drops what the client took from the environment for
// api.openai.com: the organisation and project headers, the custom
// headers of OPENAI_CUSTOM_HEADERS, and the key when none is configured.
func envHeaders(keyed bool) option.Middleware {
	var custom []string
	for _, line := range strings.Split(os.Getenv("OPENAI_CUSTOM_HEADERS"), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) != "" {
			custom = append(custom, strings.TrimSpace(name))
		}
	}
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		req.Header.Del("OpenAI-Organization")
		req.Header.Del("OpenAI-Project")
		for _, h := range custom {
			req.Header.Del(h)
		}
		if !keyed {
			req.Header.Del("Authorization")
		}
		return next(req)
	}
}

// maxErrorBody bounds what is read of a refusal.
const maxErrorBody = 64 << 10

// serverErrors reads a refusal in every shape the servers use — OpenAI's
// and vLLM's {"error":{"message"}}, older vLLM's flat {"object":"error",
// "message"}, vLLM's {"error":"Unauthorized"} and FastAPI's {"detail"} —
// into a *StatusError; the client would keep only the first and fail on
// the rest. An answer to a streamed chat that is not an event stream is a
// server of another kind.
func serverErrors(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp == nil {
		return resp, err
	}
	if resp.StatusCode < 400 {
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if strings.HasSuffix(req.URL.Path, "/chat/completions") && ct != "" && ct != "text/event-stream" && ct != "application/json" {
			resp.Body.Close()
			return nil, &Error{Err: ErrWrongServer, Detail: fmt.Sprintf("it answered a chat with %s, not an event stream", ct)}
		}
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	return nil, &StatusError{Code: resp.StatusCode, Status: resp.Status, Message: errorMessage(body)}
}

// errorMessage finds the message of an error body, whatever its shape.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return text.OneLine(string(body), 200)
	}
	var nested struct {
		Message string `json:"message"`
	}
	var str string
	switch {
	case json.Unmarshal(v.Error, &nested) == nil && nested.Message != "":
		return nested.Message
	case json.Unmarshal(v.Error, &str) == nil && str != "":
		return str
	case v.Message != "":
		return v.Message
	case json.Unmarshal(v.Detail, &str) == nil && str != "":
		return str
	case len(v.Detail) > 0:
		return text.OneLine(string(v.Detail), 200)
	}
	return text.OneLine(string(body), 200)
}

func (o *openaiBackend) Models(ctx context.Context) ([]ModelInfo, error) {
	page, err := o.client.Models.List(ctx)
	var se *StatusError
	if errors.As(err, &se) && se.Code == http.StatusNotFound {
		// Every OpenAI-compatible chat server lists its models; one that
		// has no such route is something else.
		return nil, &Error{Err: ErrWrongServer, Detail: "HTTP 404 on GET " + o.base + "/models"}
	}
	if err != nil {
		return nil, o.error(err)
	}
	out := make([]ModelInfo, 0, len(page.Data))
	for _, m := range page.Data {
		info := ModelInfo{Name: m.ID, Model: m.ID, Family: m.OwnedBy}
		if m.Created > 0 {
			info.Modified = time.Unix(m.Created, 0)
		}
		out = append(out, info)
	}
	return out, nil
}

// Capabilities are what the configuration declares: the OpenAI API has no
// way to ask. Every chat model completes.
func (o *openaiBackend) Capabilities(context.Context, string) ([]string, error) {
	caps := []string{"completion"}
	for _, c := range o.caps {
		if !slices.Contains(caps, c) {
			caps = append(caps, c)
		}
	}
	return caps, nil
}

// schemaRefused returns the server's words if it refused a JSON schema for
// model before.
func (o *openaiBackend) schemaRefused(model string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	why, ok := o.noSchema[model]
	return why, ok
}

func (o *openaiBackend) Chat(ctx context.Context, req ChatRequest, fn func(ChatChunk)) error {
	if len(req.Format) == 0 {
		return o.stream(ctx, req, formatNone, fn)
	}
	if why, ok := o.schemaRefused(req.Model); ok {
		fn(ChatChunk{Note: fmt.Sprintf("asked for json_object, not the JSON schema, which the server refused before (%s); the reply is repaired", why)})
		return o.stream(ctx, req, formatObject, fn)
	}
	err := o.stream(ctx, req, formatSchema, fn)
	var se *StatusError
	if !errors.As(err, &se) || (se.Code != http.StatusBadRequest && se.Code != http.StatusUnprocessableEntity) {
		return err
	}
	// The server would not take the schema (a grammar backend that cannot
	// compile it, a build that knows only json_object): ask once more for
	// any JSON object, which the stages' parser repairs and checks.
	why := text.OneLine(se.Message, 160)
	fn(ChatChunk{Note: fmt.Sprintf("the server refused the JSON schema (HTTP %d: %s); asked for json_object instead and repaired the reply", se.Code, why)})
	if err := o.stream(ctx, req, formatObject, fn); err != nil {
		return err
	}
	o.mu.Lock()
	o.noSchema[req.Model] = why
	o.mu.Unlock()
	return nil
}

type formatMode int

const (
	formatNone formatMode = iota
	formatSchema
	formatObject
)

// params builds the request of a call.
func (o *openaiBackend) params(req ChatRequest, mode formatMode) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		Temperature:   openai.Float(req.Temperature),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.NumPredict > 0 {
		// max_tokens, not max_completion_tokens: every OpenAI-compatible
		// server knows it.
		p.MaxTokens = openai.Int(int64(req.NumPredict))
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, message(m))
	}
	switch mode {
	case formatSchema:
		if !json.Valid(req.Format) {
			return p, fmt.Errorf("the stage's JSON schema is not JSON")
		}
		// As written: guided decoding follows the properties in the
		// schema's order, and the stages order them on purpose.
		schema := json.RawMessage(req.Format)
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "reply", Schema: schema, Strict: openai.Bool(true)}}}
	case formatObject:
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	return p, nil
}

// message converts one message; a user message's images go as image_url
// parts holding data URLs, after its text.
func message(m Message) openai.ChatCompletionMessageParamUnion {
	switch m.Role {
	case "system":
		return openai.SystemMessage(m.Content)
	case "assistant":
		return openai.AssistantMessage(m.Content)
	}
	if len(m.Images) == 0 {
		return openai.UserMessage(m.Content)
	}
	parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(m.Content)}
	for _, img := range m.Images {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(img)}))
	}
	return openai.UserMessage(parts)
}

// dataURL is an image as a base64 data URL with its sniffed type.
func dataURL(img []byte) string {
	mt := http.DetectContentType(img)
	if !strings.HasPrefix(mt, "image/") {
		mt = "image/png"
	}
	return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(img)
}

// stream makes one streamed call. The reply is done when the stream ends
// cleanly after a finish_reason; usage may come with that chunk
// (llama-server) or in one of its own after it (vLLM, OpenAI).
func (o *openaiBackend) stream(ctx context.Context, req ChatRequest, mode formatMode, fn func(ChatChunk)) error {
	p, err := o.params(req, mode)
	if err != nil {
		return err
	}
	start := time.Now()
	s := o.client.Chat.Completions.NewStreaming(ctx, p)
	defer s.Close()
	var (
		finish        string
		first, last   time.Time
		chunks        int
		usage         openai.CompletionUsage
		usageReported bool
	)
	for s.Next() {
		c := s.Current()
		if c.JSON.Usage.Valid() {
			usage, usageReported = c.Usage, true
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != "" {
				now := time.Now()
				if first.IsZero() {
					first = now
				}
				last = now
				chunks++
				fn(ChatChunk{Content: ch.Delta.Content})
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		return o.error(err)
	}
	if finish == "" {
		return nil // cut short: no final chunk, and the Controller says so
	}
	done := ChatChunk{Done: true, DoneReason: finish, EvalCount: chunks}
	if !first.IsZero() {
		// The API reports no timings: the wait for the first token stands
		// for the prompt's, the stream after it for the generation's.
		done.PromptEvalDuration, done.EvalDuration = first.Sub(start), last.Sub(first)
	}
	if usageReported {
		done.PromptEvalCount, done.EvalCount = int(usage.PromptTokens), int(usage.CompletionTokens)
		if usage.JSON.PromptTokensDetails.Valid() && usage.PromptTokensDetails.JSON.CachedTokens.Valid() {
			done.CachedTokens, done.CacheReported = int(usage.PromptTokensDetails.CachedTokens), true
		}
	}
	fn(done)
	return nil
}

// error translates the client's failures into the controller's: the
// server's refusals, classified where its words tell (a missing model, a
// key), and a stream that is not OpenAI's as a server of another kind.
func (o *openaiBackend) error(err error) error {
	var se *StatusError
	var ce *Error
	var stream *ssestream.StreamError
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, scope.ErrRedirected):
		to, _ := scope.RedirectTarget(err)
		return &Error{Err: err, Detail: fmt.Sprintf("%s — if the server has moved, set controller.host to %s", rootCause(err), movedBase(to))}
	case errors.As(err, &se):
		msg := strings.ToLower(se.Message)
		switch {
		case se.Code == http.StatusUnauthorized || se.Code == http.StatusForbidden:
			fix := "the server wants an API key: set controller.key_env to the variable that holds it (or controller.key)"
			if o.key {
				fix = "the server refused the API key from " + cmp.Or(o.source, "controller.key") + ": check it, or set controller.key_env to the variable that holds the right one"
			}
			return &Error{Err: fmt.Errorf("HTTP %d: %s", se.Code, se.Message), Detail: fmt.Sprintf("%d (%s) — %s", se.Code, text.OneLine(se.Message, 120), fix)}
		case se.Code == http.StatusNotFound && strings.Contains(msg, "model") &&
			(strings.Contains(msg, "does not exist") || strings.Contains(msg, "not found")):
			se.Kind = ErrModelMissing
		}
		return se
	case errors.As(err, &stream):
		return fmt.Errorf("the server failed mid-reply: %s", text.OneLine(strings.TrimPrefix(stream.Message, "received error while streaming: "), 200))
	case errors.As(err, &syntax):
		return &Error{Err: ErrWrongServer, Detail: "its answer is not OpenAI's JSON"}
	}
	return err
}

// The OpenAI backend speaks its own words; it cannot pull models.
var _ Hinter = (*openaiBackend)(nil)

// rootCause is a refused redirect's own words, without the client's
// wrapping.
func rootCause(err error) string {
	var re *scope.RedirectError
	if errors.As(err, &re) {
		return re.Error()
	}
	return err.Error()
}

// movedBase is the OpenAI-compatible base URL a redirect target implies:
// the target without its route (…/v1/chat/completions → …/v1).
func movedBase(to string) string {
	for _, route := range []string{"/chat/completions", "/models"} {
		if i := strings.Index(to, route); i >= 0 {
			return to[:i]
		}
	}
	return to
}

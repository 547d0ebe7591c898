package controller

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/text"
)

// openaiBackend reaches an OpenAI-compatible server — vLLM, SGLang,
// llama.cpp's llama-server, LM Studio, Ollama's /v1, a hosted endpoint —
// through OpenAI's official Go client. controller.host is the server's base
// URL, ending in /v1.
//
// A stage's JSON schema goes out as response_format json_schema (strict),
// which vLLM's and llama-server's guided decoding honour. A server that
// refuses it gets the call again with json_object, and one that refuses
// that too gets plain text with the schema in the prompt; the stages'
// parser repairs and checks the reply as any other. The backend remembers
// a refusal for the model, so later calls start where the last one
// succeeded, and says so in a note (--debug). A server that refuses
// stream_options gets the call again without it, and never again.
// usage, with prompt_tokens_details.cached_tokens where the server reports
// it, fills the reply's token counts; without it the streamed chunks are
// counted. The reply is read by what it holds (replyReader): an event
// stream, or one whole chat.completion from a server that ignores
// stream: true.
type openaiBackend struct {
	client openai.Client
	base   string
	key    bool
	source string
	caps   []string

	mu sync.Mutex
	// formats holds, per model, the JSON mode the server took after
	// refusing a stricter one, with the server's words.
	formats map[string]formatFallback
	// noStreamOptions is the server's words when it refused
	// stream_options ("": it did not).
	noStreamOptions string
}

// formatFallback is the JSON mode a server took for a model after it
// refused a stricter one, and why.
type formatFallback struct {
	mode formatMode
	why  string
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
		caps: s.Capabilities, formats: map[string]formatFallback{}}
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
// the rest. What a 200 holds is the replyReader's to judge.
func serverErrors(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp == nil || resp.StatusCode < 400 {
		return resp, err
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

// fallback returns the JSON mode the server took for model after refusing
// a stricter one: formatSchema when it refused none.
func (o *openaiBackend) fallback(model string) formatFallback {
	o.mu.Lock()
	defer o.mu.Unlock()
	if f, ok := o.formats[model]; ok {
		return f
	}
	return formatFallback{mode: formatSchema}
}

func (o *openaiBackend) Chat(ctx context.Context, req ChatRequest, fn func(ChatChunk)) error {
	if len(req.Format) == 0 {
		return o.stream(ctx, req, formatNone, fn)
	}
	f := o.fallback(req.Model)
	if f.mode != formatSchema {
		fn(ChatChunk{Note: fmt.Sprintf("asked for %s: the server refused %s before (%s); the reply is repaired", f.mode, f.mode-1, f.why)})
	}
	for {
		err := o.stream(ctx, req, f.mode, fn)
		var se *StatusError
		if f.mode == formatPrompt || !errors.As(err, &se) || !refusesFormat(se) {
			if err == nil && f.mode != formatSchema {
				o.mu.Lock()
				o.formats[req.Model] = f
				o.mu.Unlock()
			}
			return err
		}
		// The server would not take the mode (a grammar backend that
		// cannot compile the schema, a build that knows only json_object,
		// a server with no JSON mode): ask again a step looser; the
		// stages' parser repairs and checks what comes.
		f.why = fmt.Sprintf("HTTP %d: %s", se.Code, text.OneLine(se.Message, 160))
		fn(ChatChunk{Note: fmt.Sprintf("the server refused %s (%s); asked for %s instead and repaired the reply", f.mode, f.why, f.mode+1)})
		f.mode++
	}
}

// refusesFormat tells a refusal of the request's JSON mode from other
// refusals (a prompt too long, a bad parameter): a 400 or 422 whose words
// name the format, a schema, JSON or a grammar.
func refusesFormat(se *StatusError) bool {
	if se.Code != http.StatusBadRequest && se.Code != http.StatusUnprocessableEntity {
		return false
	}
	msg := strings.ToLower(se.Message)
	if strings.Contains(msg, "stream_options") {
		return false
	}
	for _, w := range []string{"format", "schema", "json", "grammar", "guided"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// refusesStreamOptions tells a server that does not know stream_options.
func refusesStreamOptions(se *StatusError) bool {
	return (se.Code == http.StatusBadRequest || se.Code == http.StatusUnprocessableEntity) &&
		(strings.Contains(se.Message, "stream_options") || strings.Contains(se.Message, "include_usage"))
}

// formatMode is how a call asks for the stage's JSON, strictest first.
type formatMode int

const (
	formatNone formatMode = iota
	formatSchema
	formatObject
	formatPrompt
)

// String names the mode in notes.
func (m formatMode) String() string {
	switch m {
	case formatSchema:
		return "the JSON schema"
	case formatObject:
		return "json_object"
	case formatPrompt:
		return "plain text with the schema in the prompt"
	}
	return "free text"
}

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
	if mode != formatNone && !json.Valid(req.Format) {
		return p, fmt.Errorf("the stage's JSON schema is not JSON")
	}
	msgs := req.Messages
	if mode == formatPrompt {
		msgs = schemaInPrompt(msgs, req.Format)
	}
	for _, m := range msgs {
		p.Messages = append(p.Messages, message(m))
	}
	switch mode {
	case formatSchema:
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

// schemaInPrompt asks for the schema in words, for a server with no JSON
// mode: after the last user message, which keeps the messages before it
// (the cached head) as they were.
func schemaInPrompt(msgs []Message, schema json.RawMessage) []Message {
	ask := "Answer with one JSON object and nothing else. It must follow this JSON schema:\n" + string(schema)
	out := slices.Clone(msgs)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == "user" {
			out[i].Content += "\n\n" + ask
			return out
		}
	}
	return append(out, Message{Role: "user", Content: ask})
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

// stream makes one streamed call, without stream_options where the
// server refused them: the first refusal costs one call more and a note,
// later calls leave them out at once.
func (o *openaiBackend) stream(ctx context.Context, req ChatRequest, mode formatMode, fn func(ChatChunk)) error {
	o.mu.Lock()
	options := o.noStreamOptions == ""
	o.mu.Unlock()
	err := o.call(ctx, req, mode, options, fn)
	var se *StatusError
	if !options || !errors.As(err, &se) || !refusesStreamOptions(se) {
		return err
	}
	why := fmt.Sprintf("HTTP %d: %s", se.Code, text.OneLine(se.Message, 160))
	o.mu.Lock()
	o.noStreamOptions = why
	o.mu.Unlock()
	fn(ChatChunk{Note: fmt.Sprintf("the server refused stream_options (%s); asked again without them, and will not send them again", why)})
	return o.call(ctx, req, mode, false, fn)
}

// call makes one streamed call and reads its reply, whatever shape the
// server gives it (replyReader).
func (o *openaiBackend) call(ctx context.Context, req ChatRequest, mode formatMode, streamOptions bool, fn func(ChatChunk)) error {
	p, err := o.params(req, mode)
	if err != nil {
		return err
	}
	if !streamOptions {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	}
	start := time.Now()
	var resp *http.Response
	if _, err := o.client.Chat.Completions.New(ctx, p, option.WithJSONSet("stream", true), option.WithResponseBodyInto(&resp)); err != nil {
		return o.error(err)
	}
	defer resp.Body.Close()
	if err := readReply(resp, start, fn); err != nil {
		return o.error(err)
	}
	return nil
}

// error translates the client's failures into the controller's: the
// server's refusals, classified where its words tell (a missing model, a
// key), and a stream that is not OpenAI's as a server of another kind.
func (o *openaiBackend) error(err error) error {
	var se *StatusError
	var ce *Error
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

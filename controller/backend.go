package controller

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Backend is the contract an LLM server must meet to be Chorus's
// controller: list its models, say what a model can do, and stream a chat
// reply (free text or following a JSON schema). The Controller owns what is
// Chorus's — caching capabilities, options, timeouts, logging, and turning
// failures into errors that name the fix — so a new kind of server is one
// file implementing these three calls (and, where the server has them, the
// optional Puller, Versioner and Hinter), plus its case in open's switch.
//
// A backend reports its server's refusals as *StatusError and transport
// failures as they come (net errors, io.EOF); the Controller classifies
// both. A backend that knows its server's words for a missing model or a
// wrong server says so: a *StatusError with Kind set, or an *Error with Err
// set to ErrModelMissing, ErrWrongServer or ErrUnreachable (the Controller
// fills in the host, the model and the backend's hints).
type Backend interface {
	// Models returns the models the server has.
	Models(ctx context.Context) ([]ModelInfo, error)
	// Capabilities returns what model can do: "completion", "vision" (it
	// accepts images), "thinking" (it knows ChatRequest.NoThink), … — an
	// empty list when the server does not say.
	Capabilities(ctx context.Context, model string) ([]string, error)
	// Chat streams one reply, calling fn for every chunk in order. It may
	// return nil without a final chunk when the stream was cut: the
	// Controller tells that from a finished reply by ChatChunk.Done.
	Chat(ctx context.Context, req ChatRequest, fn func(ChatChunk)) error
}

// Puller is a Backend whose server can download models (Ollama's pull):
// /pull and the "run /pull X" fixes exist only where the backend is one.
type Puller interface {
	// Pull downloads model, calling fn with each progress report.
	Pull(ctx context.Context, model string, fn func(PullProgress)) error
}

// Versioner is a Backend whose server says its version; informational
// only (the status line, the log).
type Versioner interface {
	Version(ctx context.Context) (string, error)
}

// ContextLengther is a Backend whose server says how long a context a
// model was trained for; informational only (chorus doctor).
type ContextLengther interface {
	ContextLength(ctx context.Context, model string) (int, error)
}

// Hinter is a Backend with its own words for its server and for the fixes
// the Controller's errors name ("start it with `ollama serve`"). A backend
// without them gets the neutral DefaultHints.
type Hinter interface {
	Hints() Hints
}

// Hints are the words errors and the UI use for a backend's server and
// for the fixes of its failures. Empty fields fall back to DefaultHints.
type Hints struct {
	// Server names the kind of server for people, as a sentence's subject:
	// "Ollama", "the controller server".
	Server string
	// Tag is the short lower-case name of the status bar: "ollama".
	Tag string
	// Start says how to make an unreachable server answer: "start it with
	// `ollama serve` (or set OLLAMA_HOST / controller.host)".
	Start string
	// Point says how to reach the right server when something else
	// answers at the host.
	Point string
	// Missing is the state of a model the server lacks: "not pulled".
	Missing string
	// Fetch says how to get a model the server lacks ("run `ollama pull
	// qwen3:8b` or /pull qwen3:8b"); nil when the server cannot get one
	// (the fix is then to pick another).
	Fetch func(model string) string
}

// DefaultHints are the words for a server whose backend gives none.
var DefaultHints = Hints{
	Server:  "the controller server",
	Tag:     "server",
	Start:   "start it, or set controller.host to where it listens",
	Point:   "set controller.host to the controller server",
	Missing: "not on the server",
}

// fill completes h with DefaultHints.
func (h Hints) fill() Hints {
	d := DefaultHints
	if h.Server == "" {
		h.Server = d.Server
	}
	if h.Tag == "" {
		h.Tag = d.Tag
	}
	if h.Start == "" {
		h.Start = d.Start
	}
	if h.Point == "" {
		h.Point = d.Point
	}
	if h.Missing == "" {
		h.Missing = d.Missing
	}
	return h
}

// ChatRequest is one chat call as the Controller decided it.
type ChatRequest struct {
	Model    string
	Messages []Message
	// Format is a JSON schema the reply must follow (nil: free text).
	Format      json.RawMessage
	Temperature float64
	// NumCtx and NumPredict are left to the server when 0.
	NumCtx     int
	NumPredict int
	// NoThink asks a thinking model not to think; only set for models
	// whose capabilities include "thinking".
	NoThink bool
	// KeepAlive is how long the server keeps the model loaded after the
	// call; 0 leaves it to the server.
	KeepAlive time.Duration
}

// ChatChunk is one piece of a streamed reply. The last one has Done set
// and carries the statistics (0 where the server gives none).
type ChatChunk struct {
	Content string
	Done    bool
	// DoneReason is "stop", "length" (cut off by NumPredict), or the
	// server's own word.
	DoneReason         string
	PromptEvalCount    int
	PromptEvalDuration time.Duration
	EvalCount          int
	EvalDuration       time.Duration
	// CachedTokens is how many of the prompt's tokens the server took from
	// its prefix cache, when it says (CacheReported): OpenAI-compatible
	// servers report usage.prompt_tokens_details.cached_tokens. Otherwise
	// the Controller estimates it from the prompts it sent.
	CachedTokens  int
	CacheReported bool
	// Reasoning is the bytes of reasoning text the chunk carried (Ollama's
	// message.thinking, an OpenAI-compatible delta.reasoning_content):
	// not part of the reply, but counted toward its cut as text is.
	Reasoning int
	// Other is the bytes of the stream the chunk stands for that carried
	// no text — SSE comments, pings, empty events, a chunk with no delta
	// — counted toward the reply's cut (limits.go). A chunk may carry
	// only this.
	Other int
	// Note says how the backend had to make the call, for --debug and the
	// log: "the server refused the JSON schema …; asked for json_object".
	// A chunk may carry only a note.
	Note string
}

// Server is where a backend reaches its server.
type Server struct {
	// URL is the base URL of controller.host.
	URL *url.URL
	// HTTP is the client to use (Options.HTTPClient, or a default one).
	HTTP *http.Client
	// Key is the bearer token the server wants (controller.key, or the
	// variable controller.key_env names); "" sends none. KeySource names
	// where it came from, for the fix of a refused key.
	Key       string
	KeySource string
	// Capabilities are what the configuration says the model can do, for
	// servers that cannot say themselves (controller.capabilities:
	// [vision]); a backend whose server says ignores them.
	Capabilities []string
}

// ErrUnknownKind means New knows no backend of the kind asked for.
var ErrUnknownKind = errors.New("unknown controller kind")

// The kinds of backend, the values of controller.kind: open's switch is
// their one list.
const (
	kindOllama = "ollama"
	kindOpenAI = "openai"
)

// DefaultKind is the backend New uses when Options.Kind is empty.
const DefaultKind = kindOllama

// Kinds lists the backend kinds New knows, sorted.
func Kinds() []string { return []string{kindOllama, kindOpenAI} }

// open builds the backend of kind for server.
func open(kind string, s Server) (Backend, error) {
	switch cmp.Or(kind, DefaultKind) {
	case kindOllama:
		return newOllamaBackend(s), nil
	case kindOpenAI:
		return newOpenAIBackend(s), nil
	}
	return nil, fmt.Errorf("%w %q — use one of: %s", ErrUnknownKind, kind, strings.Join(Kinds(), ", "))
}

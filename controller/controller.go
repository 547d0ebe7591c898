// Package controller is the LLM that plans, selects and answers in Chorus:
// HuggingGPT's controller. It speaks Chorus's own types (Message, ChatCall,
// Reply, ModelInfo, PullProgress, Status) so that the stages and the UI
// read as what they do, not as client plumbing.
//
// The server behind it is a Backend (backend.go), the package's contract
// with any LLM server: list models, say a model's capabilities, stream a
// chat reply, optionally pull models. Backends register under a kind
// (controller.kind); Ollama, through its official client, is the default
// (ollama.go, the only file that imports it). The Controller adds what is
// Chorus's: cached capabilities, call options and timeouts, and errors
// that name the fix in the backend's words ("Ollama is not reachable at …
// — start it with `ollama serve`").
package controller

import (
	"fmt"
	"github.com/chorusai/chorus/text"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Options tune controller calls.
type Options struct {
	Temperature float64
	NumCtx      int
	// PlanTokens bounds a planning reply (num_predict).
	PlanTokens int
	// AnswerTokens bounds an answer or a text task the controller does:
	// generous for real models, and a stop for one that never emits its
	// end token.
	AnswerTokens int
	// PromptTokens bounds the prompt of every call, counted at
	// BytesPerToken (limits.go): a call over it is refused unsent. 0 means
	// three quarters of NumCtx (6,144 tokens without it).
	PromptTokens int
	// Timeout bounds one controller call.
	Timeout time.Duration
	// KeepAlive keeps the model loaded between calls (Ollama's
	// keep_alive), so the calls of a turn, and the next turn, find it
	// warm with its prompt cache. 0 means DefaultKeepAlive; a negative
	// value leaves it to the server.
	KeepAlive time.Duration
	// Kind is the backend to reach the server with (Kinds);
	// empty means DefaultKind, Ollama.
	Kind string
	// HTTPClient is the backend's HTTP client; nil means a default client.
	HTTPClient *http.Client
	// MaxConcurrent bounds the chat calls in flight on the server (its
	// slots); the others wait, served round robin across chats (ForChat).
	// 0 leaves it to the server.
	MaxConcurrent int
	// Key, KeySource and Capabilities are passed to the backend (Server).
	Key          string
	KeySource    string
	Capabilities []string
	// Logger records every call (model, duration, token counts, done
	// reason) for the log file; nil discards. Prompts and replies are
	// never logged: they may hold the user's files.
	Logger *slog.Logger
}

// defaults fills the bounds of every call that were left unset: a live
// controller's and a replayed one's alike.
func (o Options) defaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.PlanTokens <= 0 {
		o.PlanTokens = 2048
	}
	if o.AnswerTokens <= 0 {
		o.AnswerTokens = 4096
	}
	o.PromptTokens = o.promptTokens()
	return o
}

// DefaultKeepAlive keeps the controller model loaded for half an hour
// after each call: long enough for a user to read an answer and ask again
// without the model and its prompt cache being evicted.
const DefaultKeepAlive = 30 * time.Minute

// Controller is the LLM that plans, selects and answers: one model on one
// server.
type Controller struct {
	backend Backend
	hints   Hints
	host    string
	model   string
	opts    Options
	log     *slog.Logger

	// prompts remembers the last prompt sent per model, shared with
	// WithModel copies, to estimate how much of a prompt the server's
	// cache already holds.
	prompts *promptMemory
	// queue bounds and orders the calls to the server, shared with
	// WithModel copies (one server, one set of slots).
	queue *queue

	mu   sync.Mutex
	caps map[string][]string // model → capabilities, from the server
	// lastCheck is the outcome of the previous Check, so a repeated one
	// is logged at debug level only.
	lastCheck string
}

// New returns a controller for model on the server at host (a base URL
// such as http://127.0.0.1:11434), reached with the backend of opts.Kind.
func New(host, model string, opts Options) (*Controller, error) {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("controller host %q is not a URL", host)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	b, err := open(opts.Kind, Server{URL: u, HTTP: hc, Key: opts.Key, KeySource: opts.KeySource, Capabilities: opts.Capabilities})
	if err != nil {
		return nil, err
	}
	return NewWith(b, host, model, opts), nil
}

// NewWith returns a controller for model on the server at host, reached
// through b: for a backend built by hand rather than one of Kinds.
func NewWith(b Backend, host, model string, opts Options) *Controller {
	opts = opts.defaults()
	if opts.KeepAlive == 0 {
		opts.KeepAlive = DefaultKeepAlive
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{backend: b, hints: hintsOf(b), host: strings.TrimRight(host, "/"), model: model, opts: opts, log: log,
		caps: map[string][]string{}, prompts: newPromptMemory(), queue: newQueue(opts.MaxConcurrent)}
}

// hintsOf returns b's hints, completed with DefaultHints.
func hintsOf(b Backend) Hints {
	if h, ok := b.(Hinter); ok {
		return h.Hints().fill()
	}
	return DefaultHints
}

// WithModel returns a controller for another model on the same server.
func (c *Controller) WithModel(model string) *Controller {
	return &Controller{backend: c.backend, hints: c.hints, host: c.host, model: model, opts: c.opts, log: c.log, caps: map[string][]string{}, prompts: c.prompts, queue: c.queue}
}

// Model returns the controller model name.
func (c *Controller) Model() string { return c.model }

// Hints returns the backend's words for its server and its fixes, for the
// UI's messages and status bar.
func (c *Controller) Hints() Hints { return c.hints }

// CanPull reports whether the server can download models (/pull).
func (c *Controller) CanPull() bool {
	_, ok := c.backend.(Puller)
	return ok
}

// Host returns the server's base URL, for people: a password in it is
// redacted.
func (c *Controller) Host() string { return text.RedactURL(c.host) }

// Options returns the options in effect, defaults filled in: the stages
// read the token bounds from them.
func (c *Controller) Options() Options { return c.opts }

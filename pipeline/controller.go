package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// ErrOllamaUnreachable means the controller's Ollama server did not answer.
var ErrOllamaUnreachable = errors.New("ollama not reachable")

// ErrModelNotPulled means the controller model is not in Ollama.
var ErrModelNotPulled = errors.New("model not pulled")

// ControllerError is a controller failure with the fix spelled out.
type ControllerError struct {
	Host  string
	Model string
	// Err is ErrOllamaUnreachable, ErrModelNotPulled, or the underlying error.
	Err error
	// Detail is the server's message or the transport error.
	Detail string
}

func (e *ControllerError) Error() string {
	switch {
	case errors.Is(e.Err, ErrOllamaUnreachable):
		return fmt.Sprintf("Ollama is not reachable at %s — start it with `ollama serve` (or set OLLAMA_HOST / controller.host)", e.Host)
	case errors.Is(e.Err, ErrModelNotPulled):
		return fmt.Sprintf("model %s is not pulled — run `ollama pull %s` or /pull %s", e.Model, e.Model, e.Model)
	}
	return fmt.Sprintf("Ollama (%s, model %s): %s", e.Host, e.Model, e.Detail)
}

// Unwrap returns the classifying error.
func (e *ControllerError) Unwrap() error { return e.Err }

// ControllerOptions tune controller calls.
type ControllerOptions struct {
	Temperature float64
	NumCtx      int
	// PlanTokens bounds a planning reply (num_predict).
	PlanTokens int
	// AnswerTokens bounds an answer or a text task the controller does:
	// generous for real models, and a stop for one that never emits its
	// end token.
	AnswerTokens int
	// Timeout bounds one controller call.
	Timeout time.Duration
	// HTTPClient is used for Ollama; nil means a default client.
	HTTPClient *http.Client
}

// Controller is the LLM that plans, selects and answers: one Ollama model,
// reached through the official client.
type Controller struct {
	client *api.Client
	host   string
	model  string
	opts   ControllerOptions

	mu   sync.Mutex
	caps map[string][]string // model → capabilities, from /api/show
}

// NewController returns a controller for model on the Ollama server at host
// (a base URL such as http://127.0.0.1:11434).
func NewController(host, model string, opts ControllerOptions) (*Controller, error) {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("controller host %q is not a URL", host)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.PlanTokens <= 0 {
		opts.PlanTokens = 2048
	}
	if opts.AnswerTokens <= 0 {
		opts.AnswerTokens = 4096
	}
	return &Controller{client: api.NewClient(u, hc), host: strings.TrimRight(host, "/"), model: model, opts: opts, caps: map[string][]string{}}, nil
}

// WithModel returns a controller for another model on the same server.
func (c *Controller) WithModel(model string) *Controller {
	return &Controller{client: c.client, host: c.host, model: model, opts: c.opts, caps: map[string][]string{}}
}

// Model returns the controller model name.
func (c *Controller) Model() string { return c.model }

// Host returns the Ollama base URL.
func (c *Controller) Host() string { return c.host }

// Client returns the underlying Ollama client, for endpoints that share it.
func (c *Controller) Client() *api.Client { return c.client }

// Status describes the controller's server and model.
type Status struct {
	Reachable    bool
	Version      string
	Pulled       bool
	Capabilities []string
	// Err explains what is wrong; nil when the controller is ready.
	Err error
}

// Check asks Ollama whether it is up and has the model.
//
// It asks only what it needs, in the order that tells most: the model list
// (reachability, and whether the model is pulled), then the model's
// capabilities; the version is informational. A server that lacks one of
// the informational routes is not declared down for it.
//
// A cancelled ctx is reported as such (Err is ctx's error), not as an
// unreachable server: the caller gave up, the server did nothing wrong.
func (c *Controller) Check(parent context.Context) Status {
	ctx, cancel := context.WithTimeout(parent, 10*time.Second)
	defer cancel()
	list, err := c.client.List(ctx)
	listed := err == nil
	var se api.StatusError
	switch {
	case parent.Err() != nil:
		return Status{Err: parent.Err()}
	case err == nil:
		if !hasModel(list.Models, c.model) {
			return Status{Reachable: true, Err: &ControllerError{Host: c.host, Model: c.model, Err: ErrModelNotPulled}}
		}
	case errors.As(err, &se):
		// Listing is refused or missing; /api/show below still tells
		// whether the model exists.
	default:
		return Status{Err: c.wrap(err)}
	}
	st := Status{Reachable: true, Pulled: true}
	st.Version, _ = c.client.Version(ctx)
	caps, err := c.Capabilities(ctx)
	if parent.Err() != nil {
		return Status{Err: parent.Err()}
	}
	if err != nil {
		// A model the list shows is pulled, whatever /api/show says.
		if errors.Is(err, ErrOllamaUnreachable) || !listed && errors.Is(err, ErrModelNotPulled) {
			st.Pulled, st.Err = false, err
			st.Reachable = !errors.Is(err, ErrOllamaUnreachable)
		}
		return st
	}
	st.Capabilities = caps
	return st
}

// hasModel reports whether name is among the pulled models, with Ollama's
// default ":latest" tag applied on either side.
func hasModel(models []api.ListModelResponse, name string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if !strings.Contains(s[strings.LastIndex(s, "/")+1:], ":") {
			s += ":latest"
		}
		return s
	}
	want := norm(name)
	for _, m := range models {
		if norm(m.Name) == want || norm(m.Model) == want {
			return true
		}
	}
	return false
}

// Capabilities returns the model's capabilities ("completion", "vision",
// "thinking", …), cached after the first successful call.
func (c *Controller) Capabilities(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	caps, ok := c.caps[c.model]
	c.mu.Unlock()
	if ok {
		return caps, nil
	}
	resp, err := c.client.Show(ctx, &api.ShowRequest{Model: c.model})
	if err != nil {
		return nil, c.wrap(err)
	}
	caps = make([]string, 0, len(resp.Capabilities))
	for _, cp := range resp.Capabilities {
		caps = append(caps, string(cp))
	}
	c.mu.Lock()
	c.caps[c.model] = caps
	c.mu.Unlock()
	return caps, nil
}

// CanSee reports whether the controller model accepts images. Errors count
// as no: grounding is an enhancement, never a reason to fail a turn.
func (c *Controller) CanSee(ctx context.Context) bool {
	caps, err := c.Capabilities(ctx)
	return err == nil && slices.Contains(caps, "vision")
}

// Models lists the models pulled into Ollama.
func (c *Controller) Models(ctx context.Context) ([]api.ListModelResponse, error) {
	resp, err := c.client.List(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	return resp.Models, nil
}

// Pull downloads a model, reporting progress through fn.
func (c *Controller) Pull(ctx context.Context, model string, fn func(api.ProgressResponse)) error {
	err := c.client.Pull(ctx, &api.PullRequest{Model: model}, func(p api.ProgressResponse) error {
		if fn != nil {
			fn(p)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var se api.StatusError
		if errors.As(err, &se) {
			return &ControllerError{Host: c.host, Model: model, Err: err, Detail: se.ErrorMessage}
		}
		return (&Controller{host: c.host, model: model}).wrap(err)
	}
	c.mu.Lock()
	delete(c.caps, model)
	c.mu.Unlock()
	return nil
}

// ChatCall is one controller request.
type ChatCall struct {
	Messages []api.Message
	// Format is a JSON schema the reply must follow (nil: free text).
	Format json.RawMessage
	// NumPredict bounds the reply length; 0 leaves it to Ollama.
	NumPredict int
	// OnToken, when set, receives the reply as it streams.
	OnToken func(string)
}

// Reply is a finished controller reply.
type Reply struct {
	Content string
	// DoneReason is "stop", "length" (cut off by NumPredict), or "load".
	DoneReason   string
	EvalCount    int
	EvalDuration time.Duration
}

// Truncated reports whether the reply hit the token limit.
func (r Reply) Truncated() bool { return r.DoneReason == "length" }

// TokensPerSecond is the generation speed Ollama measured.
func (r Reply) TokensPerSecond() float64 {
	if r.EvalDuration <= 0 {
		return 0
	}
	return float64(r.EvalCount) / r.EvalDuration.Seconds()
}

// Chat sends one request and collects the streamed reply.
func (c *Controller) Chat(parent context.Context, call ChatCall) (Reply, error) {
	ctx, cancel := context.WithTimeout(parent, c.opts.Timeout)
	defer cancel()
	think := api.ThinkValue{Value: false}
	opts := map[string]any{"temperature": c.opts.Temperature}
	if c.opts.NumCtx > 0 {
		opts["num_ctx"] = c.opts.NumCtx
	}
	if call.NumPredict > 0 {
		opts["num_predict"] = call.NumPredict
	}
	req := &api.ChatRequest{Model: c.model, Messages: call.Messages, Format: call.Format, Options: opts}
	if c.thinks(ctx) {
		// Thinking models answer faster and keep JSON clean without it;
		// only send the flag to models that know it.
		req.Think = &think
	}
	var (
		b     strings.Builder
		reply Reply
		done  bool
	)
	err := c.client.Chat(ctx, req, func(r api.ChatResponse) error {
		if r.Message.Content != "" {
			b.WriteString(r.Message.Content)
			if call.OnToken != nil {
				call.OnToken(r.Message.Content)
			}
		}
		if r.Done {
			done = true
			reply.DoneReason = r.DoneReason
			reply.EvalCount, reply.EvalDuration = r.EvalCount, r.EvalDuration
		}
		return nil
	})
	reply.Content = b.String()
	// The client drops read errors at the end of a stream, so a cancelled
	// context or a dropped connection shows up only as a missing final chunk.
	if parent.Err() != nil {
		return reply, parent.Err()
	}
	if ctx.Err() != nil {
		return reply, &ControllerError{Host: c.host, Model: c.model, Err: ctx.Err(),
			Detail: fmt.Sprintf("no complete reply within %s — raise controller.timeout or use a faster model", c.opts.Timeout)}
	}
	if err != nil {
		return reply, c.wrap(err)
	}
	if !done {
		return reply, &ControllerError{Host: c.host, Model: c.model, Err: errors.New("stream ended early"), Detail: "Ollama closed the reply stream before it finished"}
	}
	return reply, nil
}

func (c *Controller) thinks(ctx context.Context) bool {
	caps, err := c.Capabilities(ctx)
	return err == nil && slices.Contains(caps, "thinking")
}

var notFound = regexp.MustCompile(`(?i)model .* not found|not found, try pulling`)

// wrap classifies an Ollama client error.
func (c *Controller) wrap(err error) error {
	if err == nil {
		return nil
	}
	var ce *ControllerError
	if errors.As(err, &ce) {
		return err
	}
	var se api.StatusError
	if errors.As(err, &se) {
		if se.StatusCode == http.StatusNotFound || notFound.MatchString(se.ErrorMessage) {
			return &ControllerError{Host: c.host, Model: c.model, Err: ErrModelNotPulled, Detail: se.ErrorMessage}
		}
		msg := se.ErrorMessage
		if msg == "" {
			msg = se.Status
		}
		return &ControllerError{Host: c.host, Model: c.model, Err: err, Detail: fmt.Sprintf("HTTP %d: %s", se.StatusCode, msg)}
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || errors.Is(err, os.ErrDeadlineExceeded) || strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "EOF") {
		return &ControllerError{Host: c.host, Model: c.model, Err: ErrOllamaUnreachable, Detail: err.Error()}
	}
	if notFound.MatchString(err.Error()) {
		return &ControllerError{Host: c.host, Model: c.model, Err: ErrModelNotPulled, Detail: err.Error()}
	}
	return &ControllerError{Host: c.host, Model: c.model, Err: err, Detail: err.Error()}
}

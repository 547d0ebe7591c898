// Package huggingface is the huggingface endpoint kind: models run on the
// Hugging Face Inference API (provider hf-inference). The request and
// answer shapes are hfapi's; this package speaks the HTTP protocol with
// Hugging Face's own rules — waiting for a loading model with
// X-Wait-For-Model, backing off on 429, retrying a 5xx once — and turns
// every failure into an error that wraps the endpoints sentinels and names
// the fix. Its Client also serves the local endpoint's hf protocol.
package huggingface

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
)

// Defaults for Options.
const (
	// DefaultBaseURL is Hugging Face's own inference provider behind the
	// router.
	DefaultBaseURL = "https://router.huggingface.co/hf-inference"
	// DefaultMaxWait bounds the wait for a loading model.
	DefaultMaxWait = 2 * time.Minute
	// DefaultMaxRetries bounds the retries after HTTP 429.
	DefaultMaxRetries = 4
	// DefaultBackoff is the first pause after a 429 without Retry-After.
	DefaultBackoff = time.Second
)

// Options configures an Endpoint or a Client.
type Options struct {
	// BaseURL is the inference base; requests go to {BaseURL}/models/{id}.
	// Empty means DefaultBaseURL.
	BaseURL string
	// Token is the Hugging Face access token.
	Token string
	// MaxWait bounds how long a call waits for a loading model (HTTP 503).
	// Zero means DefaultMaxWait; a negative value gives up at once.
	MaxWait time.Duration
	// MaxRetries bounds the retries after HTTP 429. Zero means
	// DefaultMaxRetries; a negative value never retries.
	MaxRetries int
	// Backoff is the first pause after a 429 without Retry-After (it
	// doubles on each retry, up to 30s) and the pause before retrying a
	// 5xx answer. Zero means DefaultBackoff.
	Backoff time.Duration
	// HTTPClient makes the requests; nil means a client without a timeout
	// (the context bounds every call).
	HTTPClient *http.Client
	// MaxBodyBytes bounds an answer: one whose Content-Length is larger is
	// refused before it is read, one that grows past it while it is read
	// is refused then. Zero means endpoints.DefaultMaxBytes (512 MB).
	MaxBodyBytes int64
	// TempDir holds large file answers, streamed there instead of held in
	// memory (endpoints.Blob.Path); "" means os.TempDir().
	TempDir string
}

// Endpoint runs models on the Hugging Face Inference API
// (provider hf-inference), with the payloads of the official client. It
// waits for loading models, backs off on rate limits and classifies every
// failure with the endpoints sentinel errors. It is safe for concurrent
// use.
type Endpoint struct {
	c *Client
}

// New returns an endpoint for the Inference API.
func New(opts Options) *Endpoint {
	if strings.TrimSpace(opts.BaseURL) == "" {
		opts.BaseURL = DefaultBaseURL
	}
	return &Endpoint{c: NewClient(endpoints.HuggingFace, opts)}
}

// Kind returns endpoints.HuggingFace.
func (e *Endpoint) Kind() endpoints.Kind { return endpoints.HuggingFace }

// Check reports whether the endpoint could run model for task: a token is
// set and the task has a Hugging Face request shape. It does not touch the
// network; whether the provider serves a model is learnt from the call.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	if e.c.token == "" {
		return endpoints.Explain("no Hugging Face token — set HF_TOKEN or huggingface.token (https://huggingface.co/settings/tokens)", endpoints.ErrUnauthorized)
	}
	if !hfapi.Supported(task) {
		return hfapi.Unsupported(task)
	}
	if _, err := hfapi.ModelPath(model); err != nil {
		return err
	}
	return nil
}

// Infer runs req.Model on the Inference API.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	return e.c.Infer(ctx, req)
}

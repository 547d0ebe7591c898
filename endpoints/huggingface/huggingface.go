// Package huggingface is the huggingface endpoint kind: models run through
// Hugging Face's Inference Providers router (https://router.huggingface.co)
// on whichever provider serves them — Hugging Face's own hf-inference,
// fal-ai, replicate, together, nebius — with each provider's routes and
// payloads as the official client (@huggingface/inference) sends them.
// Which providers serve a model, and under which id, the Hub says
// (inferenceProviderMapping, asked when a model runs and cached, or known
// from the catalog); huggingface.providers orders and limits them.
//
// hf-inference's request and answer shapes are hfapi's; this package
// speaks the HTTP protocols with Hugging Face's own rules — waiting for a
// loading model with X-Wait-For-Model, backing off on 429, retrying a 5xx
// once — plus fal-ai's queue and Replicate's predictions, downloads the
// files providers answer with by URL (public addresses only, bounded), and
// turns every failure into an error that wraps the endpoints sentinels and
// names the provider and the fix. Its Client also serves the local
// endpoint's hf protocol.
package huggingface

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/skills"
)

// Defaults for Options.
const (
	// DefaultBaseURL is Hugging Face's Inference Providers router.
	DefaultBaseURL = "https://router.huggingface.co"
	// DefaultMaxWait bounds the wait for a loading model.
	DefaultMaxWait = 2 * time.Minute
	// DefaultMaxRetries bounds the retries after HTTP 429.
	DefaultMaxRetries = 4
	// DefaultBackoff is the first pause after a 429 without Retry-After.
	DefaultBackoff = time.Second
	// DefaultPollInterval is the pause between two looks at a queued job
	// (fal-ai's queue, a Replicate prediction): the official client's.
	DefaultPollInterval = 500 * time.Millisecond
)

// Options configures an Endpoint or a Client.
type Options struct {
	// BaseURL is the router; requests go to {BaseURL}/{provider}/….
	// Empty means DefaultBaseURL. A base ending in /hf-inference (the
	// setting of earlier versions, which called only that provider) is
	// read as the router it belongs to. For a Client (the local
	// endpoint's hf protocol) it is the server, used as given.
	BaseURL string
	// Token is the Hugging Face access token.
	Token string
	// Providers is huggingface.providers: the providers that may run a
	// model, in the order they are tried; "auto" stands for every
	// provider that serves it, in the order the Hub lists them (the
	// user's order from their Hub settings). Empty means [auto].
	Providers []string
	// Hub is asked which providers serve a model when it runs (and the
	// answer cached); nil means only Known is used.
	Hub MappingSource
	// Known is what the catalog knows of models' providers (curated or
	// synced), by Hub id: used during selection, which stays offline,
	// and when the Hub cannot be asked.
	Known map[string][]skills.Provider
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
	// PollInterval is the pause between two looks at a queued job. Zero
	// means DefaultPollInterval.
	PollInterval time.Duration
	// HTTPClient makes the requests; nil means a client without a timeout
	// (the context bounds every call).
	HTTPClient *http.Client
	// MaxBodyBytes bounds an answer: one whose Content-Length is larger is
	// refused before it is read, one that grows past it while it is read
	// is refused then. It bounds a file downloaded from a provider's
	// result URL too. Zero means endpoints.DefaultMaxBytes (512 MB).
	MaxBodyBytes int64
	// TempDir holds large file answers, streamed there instead of held in
	// memory (endpoints.Blob.Path); "" means os.TempDir().
	TempDir string
	// DownloadTransport replaces the network for downloading result URLs
	// (tests); nil dials public addresses only.
	DownloadTransport http.RoundTripper
}

// Endpoint runs models through Hugging Face's router, on the providers
// that serve them, with the payloads of the official client. It waits for
// loading models, backs off on rate limits, polls queued jobs, and
// classifies every failure with the endpoints sentinel errors. It is safe
// for concurrent use.
type Endpoint struct {
	c        *Client
	routing  *mappings
	poll     time.Duration
	download http.RoundTripper

	mu sync.Mutex
	// unpaid holds a 402 until when Check repeats it: every provider
	// bills the same account, so candidates elsewhere go first.
	unpaid      error
	unpaidUntil time.Time
}

// unpaidFor is how long a 402 makes Check refuse.
const unpaidFor = 10 * time.Minute

// New returns an endpoint for Hugging Face's Inference Providers.
func New(opts Options) *Endpoint {
	base := strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/")
	base = strings.TrimSuffix(base, "/"+ProviderHFInference)
	if base == "" {
		base = DefaultBaseURL
	}
	opts.BaseURL = base
	e := &Endpoint{c: NewClient(skills.EndpointHuggingFace, opts), routing: newMappings(opts.Providers, opts.Hub, opts.Known),
		poll: opts.PollInterval, download: opts.DownloadTransport}
	if e.poll <= 0 {
		e.poll = DefaultPollInterval
	}
	return e
}

// Kind returns skills.EndpointHuggingFace.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointHuggingFace }

// Check reports whether the endpoint could run model for task: a token is
// set, a configured provider Chorus speaks can run the task, and — where
// the catalog (or an earlier call) knows which providers serve the model —
// one of them is allowed by huggingface.providers. It does not touch the
// network; a model whose providers are not known is tried on
// hf-inference (or asked of the Hub) when it runs.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	if e.c.token == "" {
		return endpoints.Explain("no Hugging Face token — set HF_TOKEN or huggingface.token (https://huggingface.co/settings/tokens)", endpoints.ErrUnauthorized)
	}
	if !servesTask(task) {
		return hfapi.Unsupported(task)
	}
	if _, err := hfapi.ModelPath(model); err != nil {
		return err
	}
	if err := e.unpaidError(); err != nil {
		return err
	}
	if _, why := e.routing.routes(ctx, task, model, false); why != "" {
		return endpoints.Explain(why, endpoints.ErrUnavailable)
	}
	return nil
}

// Provider names the provider a call of model for task would try first,
// when that is settled without asking the Hub — no Hub is configured, the
// router chooses (chat: "auto"), or the Hub's answer for the model is in
// and fresh — and "" otherwise: the catalog's providers may not be the
// ones the Hub lists now, and naming them would claim a provider that
// does not run (endpoints.ProviderNamer).
func (e *Endpoint) Provider(task, model string) string {
	if !e.routing.settled(task, model) {
		return ""
	}
	rs, _ := e.routing.routes(context.Background(), task, model, false)
	if len(rs) == 0 {
		return ""
	}
	return rs[0].provider
}

// ResolveProvider names the provider a call of model for task will try
// first, asking the Hub which providers serve the model now as the call
// does (the answer is cached for the call): "" when none can run it.
func (e *Endpoint) ResolveProvider(ctx context.Context, task, model string) string {
	rs, _ := e.routing.routes(ctx, task, model, true)
	if len(rs) == 0 {
		return ""
	}
	return rs[0].provider
}

// Infer runs req.Model through the router: it asks the Hub which
// providers serve the model now, then tries them in the configured order
// until one answers. A provider that does not serve the model (404), fails
// (5xx after a retry), keeps rate-limiting or rejects the request's shape
// hands over to the next; a refused token, a payment that is due, bad
// input or the end of the task's time stops at once. The Result names the
// provider that ran it.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	if _, err := hfapi.ModelPath(req.Model); err != nil {
		return endpoints.Result{}, fmt.Errorf("%s: %w", skills.EndpointHuggingFace, err)
	}
	if !servesTask(req.Task) {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", skills.EndpointHuggingFace, req.Model, hfapi.Unsupported(req.Task))
	}
	routes, why := e.routing.routes(ctx, req.Task, req.Model, true)
	if len(routes) == 0 {
		return endpoints.Result{}, endpoints.Explain(fmt.Sprintf("%s %s: %s", skills.EndpointHuggingFace, req.Model, why), endpoints.ErrUnavailable)
	}
	var errs []error
	for i, r := range routes {
		if i > 0 {
			// One short line, replaced by the next: if every provider
			// fails, the executor says so once, for all of them.
			report(req, endpoints.Progress{Message: fmt.Sprintf("%s; trying %s", endpoints.WhyFailed(errs[len(errs)-1]), r.provider), Passing: true})
		}
		res, err := protocolFor(r.provider, req.Task)(ctx, e, r, req)
		if err == nil {
			if res.Provider == "" {
				res.Provider = r.provider
			}
			return res, nil
		}
		errs = append(errs, err)
		if errors.Is(err, ErrPaymentRequired) {
			e.setUnpaid(err)
		}
		if !nextProvider(ctx, err) {
			break
		}
	}
	if len(errs) == 1 {
		return endpoints.Result{}, errs[0]
	}
	// Every provider failed: the last error classifies, all are told.
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	return endpoints.Result{}, &endpoints.AllFailed{Msg: fmt.Sprintf("%s %s: no provider could run it: %s", skills.EndpointHuggingFace, req.Model, strings.Join(msgs, "; ")), Errs: errs}
}

// nextProvider reports whether another provider may succeed where err
// failed: not after bad input, a refused token, a payment that is due, the
// end of the caller's time, or a router that cannot be reached at all —
// every provider is behind it.
func nextProvider(ctx context.Context, err error) bool {
	var down *endpoints.HostDownError
	return ctx.Err() == nil && !errors.Is(err, endpoints.ErrBadInput) && !errors.Is(err, endpoints.ErrUnauthorized) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &down)
}

// Host is the router's host: every provider's call goes through it
// (endpoints.Hoster).
func (e *Endpoint) Host(task, model string) string { return endpoints.HostKey(e.c.base) }

func (e *Endpoint) setUnpaid(err error) {
	e.mu.Lock()
	e.unpaid, e.unpaidUntil = err, time.Now().Add(unpaidFor)
	e.mu.Unlock()
}

func (e *Endpoint) unpaidError() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.unpaid != nil && time.Now().Before(e.unpaidUntil) {
		return e.unpaid
	}
	return nil
}

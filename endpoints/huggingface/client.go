package huggingface

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Client speaks the Inference API protocol to one server, with the retry
// rules of Hugging Face: wait for loading models, back off on 429, retry a
// 5xx once.
type Client struct {
	kind       skills.EndpointKind
	base       string
	token      string
	client     *http.Client
	maxWait    time.Duration // negative: never wait
	maxRetries int
	backoff    time.Duration
	spool      endpoints.Spool
}

// NewClient returns a client for the server at opts.BaseURL (used as
// given, without DefaultBaseURL) that names itself kind in messages:
// skills.EndpointHuggingFace for Hugging Face, skills.EndpointLocal for a self-hosted
// server, which is sent no credentials unless opts.Token is set.
func NewClient(kind skills.EndpointKind, opts Options) *Client {
	c := &Client{
		kind: kind, base: strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/"), token: strings.TrimSpace(opts.Token),
		client: opts.HTTPClient, maxWait: opts.MaxWait, maxRetries: opts.MaxRetries, backoff: opts.Backoff,
		spool: endpoints.Spool{Dir: opts.TempDir, Max: opts.MaxBodyBytes},
	}
	// The token goes only to the configured origin: no redirect of a
	// call leaves it, and none re-sends a body (result files come by
	// fetchResult, without it).
	c.client = scope.Credentialed(c.client)
	if c.maxWait == 0 {
		c.maxWait = DefaultMaxWait
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.backoff <= 0 {
		c.backoff = DefaultBackoff
	}
	return c
}

// where names the server in messages: Hugging Face (its own hf-inference
// provider), another Inference Provider behind its router, or the local
// server.
func (c *Client) where(provider string) string {
	switch {
	case c.kind != skills.EndpointHuggingFace:
		return "the local server " + c.base
	case provider == "" || provider == ProviderHFInference:
		return "Hugging Face"
	case provider == ProviderAuto:
		return "Hugging Face's router"
	}
	return provider + " (through Hugging Face)"
}

// Infer runs req.Model on the server: the request hfapi builds for the task,
// posted until it succeeds or a rule gives up, and the answer read back.
// Media inputs are read only from req.Files. A file answer larger than
// the spool keeps in memory comes back as a Blob with a temporary Path.
func (c *Client) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	return c.inferAPI(ctx, req, c.base, req.Model, "")
}

// inferAPI runs model (the id the server knows it by) for req on the
// Inference API rooted at base — a self-hosted server, or Hugging Face's
// hf-inference provider behind the router, named provider in messages.
func (c *Client) inferAPI(ctx context.Context, req endpoints.Request, base, model, provider string) (endpoints.Result, error) {
	if hfapi.IsControlNetTask(req.Task) || !hfapi.Supported(req.Task) {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", c.kind, req.Model, hfapi.Unsupported(req.Task))
	}
	path, err := hfapi.ModelPath(model)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s: %w", c.kind, err)
	}
	sent := req
	sent.Model = model // the chat route names the model in the body too
	hr, err := hfapi.Build(sent)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", c.kind, req.Model, err)
	}
	status, ctype, body, head, err := c.exchange(ctx, req, call{method: http.MethodPost, url: base + "/models/" + path + hr.Route,
		contentType: hr.ContentType, body: hr.Body, provider: provider})
	if err != nil {
		return endpoints.Result{}, err
	}
	res, err := hfapi.ParseBlob(req.Task, req.Args, ctype, body, head, c.spool)
	if err != nil {
		return endpoints.Result{}, &endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: provider, Status: status,
			Message: err.Error() + " — the model does not answer like a " + req.Task + " model; another candidate may", Err: endpoints.ErrUnavailable}
	}
	res.Provider = provider
	return res, nil
}

// call is one HTTP request of a provider's protocol.
type call struct {
	method      string
	url         string
	contentType string
	body        []byte
	// header holds extra headers (Replicate's Prefer: wait).
	header http.Header
	// provider names the Inference Provider in messages; "" for a
	// self-hosted server.
	provider string
}

// maxErrorBody bounds how much of a failure's body is read: enough for
// any message; the rest is never read.
const maxErrorBody = 64 << 10

// exchange makes the call until it succeeds or a rule gives up, and
// returns the successful answer, spooled, with its first bytes.
func (c *Client) exchange(ctx context.Context, req endpoints.Request, cl call) (int, string, endpoints.Blob, []byte, error) {
	fail := func(err error) (int, string, endpoints.Blob, []byte, error) { return 0, "", endpoints.Blob{}, nil, err }
	start := time.Now()
	waitForModel := false
	rateRetries := 0
	retried5xx := false
	for {
		resp, err := c.send(ctx, cl, waitForModel)
		if err != nil {
			return fail(endpoints.MarkHostDown(cl.url, err, c.netError(ctx, req.Model, cl.provider, err)))
		}
		status := resp.StatusCode
		if status >= 200 && status < 300 {
			blob, head, err := c.spool.ReadBody(resp)
			resp.Body.Close()
			if err != nil {
				return fail(c.bodyError(ctx, req.Model, cl.provider, status, err))
			}
			return status, resp.Header.Get("Content-Type"), blob, head, nil
		}
		// A failure's body is read only as far as a message goes; a
		// server that sends more is cut short, not believed.
		body, err := httpwire.ReadBody(resp, maxErrorBody)
		resp.Body.Close()
		var be *httpwire.BodyError
		switch {
		case errors.As(err, &be) && be.TooLarge():
			body = nil
		case err != nil:
			return fail(c.bodyError(ctx, req.Model, cl.provider, status, err))
		}
		msg := hfapi.Message(body)

		switch est, loading := loading(status, body); {
		case loading:
			left := c.maxWait - time.Since(start)
			if c.maxWait < 0 {
				return fail(&endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: cl.provider, Status: status, Err: endpoints.ErrUnavailable,
					Message: fmt.Sprintf("%s is loading the model (about %s) and waiting is turned off — try again later or set huggingface.max_wait", c.where(cl.provider), round(est))})
			}
			if left <= 0 {
				return fail(&endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: cl.provider, Status: status, Err: endpoints.ErrUnavailable,
					Message: fmt.Sprintf("%s is still loading the model after %s — try again later or raise huggingface.max_wait", c.where(cl.provider), round(time.Since(start)))})
			}
			if est > c.maxWait {
				// Waiting the whole max_wait for a model that needs longer
				// helps nobody: give up now and say how long it would take.
				return fail(&endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: cl.provider, Status: status, Err: endpoints.ErrUnavailable,
					Message: fmt.Sprintf("model %s is loading on %s (about %s) — longer than %s; try again later or raise it", req.Model, c.where(cl.provider), round(est), c.maxWaitSetting())})
			}
			wait := min(max(est, c.backoff), left)
			if deadlineBefore(ctx, wait) {
				return fail(&endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: cl.provider, Status: status, Err: endpoints.ErrUnavailable,
					Message: fmt.Sprintf("%s is loading the model (about %s), longer than this task has left — try again later", c.where(cl.provider), round(est))})
			}
			report(req, endpoints.Progress{Message: fmt.Sprintf("%s is loading %s (about %s)", c.where(cl.provider), req.Model, round(est)), Wait: wait})
			if err := httpwire.Sleep(ctx, wait); err != nil {
				return fail(fmt.Errorf("%s %s: stopped while waiting for the model to load: %w", c.kind, req.Model, err))
			}
			// Ask the server to hold the retry until the model is ready.
			waitForModel = true
			continue

		case status == http.StatusTooManyRequests:
			if rateRetries >= c.maxRetries {
				return fail(&endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: cl.provider, Status: status, Err: endpoints.ErrRateLimited,
					Message: fmt.Sprintf("%s kept rate-limiting requests after %d retries — wait a few minutes, or use a token with a higher quota (https://huggingface.co/pricing)", c.where(cl.provider), rateRetries)})
			}
			wait, fromHeader := httpwire.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
			if !fromHeader {
				wait = backoffFor(c.backoff, rateRetries)
			}
			if limit := max(c.maxWait, maxBackoff); wait > limit || deadlineBefore(ctx, wait) {
				return fail(&endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: cl.provider, Status: status, Err: endpoints.ErrRateLimited,
					Message: fmt.Sprintf("%s asks to wait %s before the next request (Retry-After) — try again later", c.where(cl.provider), round(wait))})
			}
			rateRetries++
			report(req, endpoints.Progress{Message: fmt.Sprintf("rate limited by %s (HTTP 429); retry %d of %d in %s", c.where(cl.provider), rateRetries, c.maxRetries, round(wait)), Wait: wait, Passing: true})
			if err := httpwire.Sleep(ctx, wait); err != nil {
				return fail(fmt.Errorf("%s %s: stopped while backing off after HTTP 429: %w", c.kind, req.Model, err))
			}
			continue

		case status == http.StatusInternalServerError || status == http.StatusBadGateway ||
			status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
			if !retried5xx && !deadlineBefore(ctx, c.backoff) {
				retried5xx = true
				report(req, endpoints.Progress{Message: fmt.Sprintf("%s answered HTTP %d for %s; retrying once", c.where(cl.provider), status, req.Model), Wait: c.backoff, Passing: true})
				if err := httpwire.Sleep(ctx, c.backoff); err != nil {
					return fail(fmt.Errorf("%s %s: stopped before retrying HTTP %d: %w", c.kind, req.Model, status, err))
				}
				continue
			}
			return fail(&endpoints.HTTPError{Kind: c.kind, Model: req.Model, Provider: cl.provider, Status: status, Err: endpoints.ErrUnavailable, Said: msg,
				Message: fmt.Sprintf("%s failed to run the model%s — try another model or try again later", c.where(cl.provider), ServerSaid(msg))})
		}
		return fail(c.statusError(req.Model, cl.provider, status, msg))
	}
}

// maxWaitSetting names the wait limit for a loading model, with its value.
func (c *Client) maxWaitSetting() string {
	if c.kind == skills.EndpointHuggingFace {
		return fmt.Sprintf("huggingface.max_wait (%s)", round(c.maxWait))
	}
	return fmt.Sprintf("the %s Chorus waits for a loading model", round(c.maxWait))
}

// bodyError explains an answer that arrived but could not be read whole.
// A server that answered is not unreachable: a body cut off mid-way says
// so, one over the limit says that, and a caller that gave up is told it
// stopped.
func (c *Client) bodyError(ctx context.Context, model, provider string, status int, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: stopped: %w", c.kind, model, ctxErr)
	}
	var be *httpwire.BodyError
	switch {
	case errors.As(err, &be) && be.TooLarge():
		return &endpoints.HTTPError{Kind: c.kind, Model: model, Provider: provider, Status: status, Err: errors.Join(endpoints.ErrUnavailable, be),
			Message: fmt.Sprintf("%v — a smaller output, or another model, may do", be)}
	case errors.As(err, &be):
		return &endpoints.HTTPError{Kind: c.kind, Model: model, Provider: provider, Status: status, Err: errors.Join(endpoints.ErrUnavailable, be),
			Message: fmt.Sprintf("%s started answering, then closed the connection: %v — try again", c.where(provider), be)}
	}
	// The answer could not be stored (a full disk): nothing another
	// model would change.
	return fmt.Errorf("%s %s: %w", c.kind, model, err)
}

func (c *Client) send(ctx context.Context, cl call, waitForModel bool) (*http.Response, error) {
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	r, err := http.NewRequestWithContext(ctx, cl.method, cl.url, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range cl.header {
		r.Header[k] = vs
	}
	if cl.contentType != "" {
		r.Header.Set("Content-Type", cl.contentType)
	}
	if c.token != "" {
		r.Header.Set("Authorization", "Bearer "+c.token)
	}
	if waitForModel {
		r.Header.Set("X-Wait-For-Model", "true")
	}
	r.Header.Set("User-Agent", "chorus")
	return c.client.Do(r)
}

// netError classifies a failure to get an answer: the caller's context
// ending (returned so errors.Is finds context.Canceled or
// DeadlineExceeded), or the server being unreachable.
func (c *Client) netError(ctx context.Context, model, provider string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: stopped: %w", c.kind, model, ctxErr)
	}
	fix := "check the network connection or huggingface.base_url"
	if c.kind != skills.EndpointHuggingFace {
		fix = "start the server or set local.url"
	}
	if re := (*scope.RedirectError)(nil); errors.As(err, &re) {
		setting := "huggingface.base_url"
		if c.kind != skills.EndpointHuggingFace {
			setting = "local.url"
		}
		return endpoints.Explain(fmt.Sprintf("%s %s: %s: %v — check %s", c.kind, model, c.where(provider), re, setting), endpoints.ErrUnavailable, err)
	}
	return endpoints.Explain(fmt.Sprintf("%s %s: %s is not reachable at %s — %s (%v)", c.kind, model, c.where(provider), c.base, fix, err), endpoints.ErrUnreachable, err)
}

// statusError classifies a final non-success status from provider ("" for
// a self-hosted server), with a message that names the fix.
func (c *Client) statusError(model, provider string, status int, msg string) error {
	e := &endpoints.HTTPError{Kind: c.kind, Model: model, Provider: provider, Status: status}
	said := ServerSaid(msg)
	hf := c.kind == skills.EndpointHuggingFace
	// A provider other than Hugging Face's own answers through the router:
	// its refusals are about that provider's app, not the user's input.
	other := hf && provider != "" && provider != ProviderHFInference
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized && hf && c.token == "":
		e.Err = endpoints.ErrUnauthorized
		e.Message = "Hugging Face needs a token (HTTP 401) — set HF_TOKEN or huggingface.token (https://huggingface.co/settings/tokens)"
	case status == http.StatusUnauthorized && hf:
		e.Err = endpoints.ErrUnauthorized
		e.Message = "Hugging Face rejected the token (HTTP 401) — set a valid token in HF_TOKEN or huggingface.token (https://huggingface.co/settings/tokens)" + said
	case status == http.StatusPaymentRequired && hf:
		// Hugging Face bills every provider's calls to the account, so
		// the next provider would be refused the same way.
		e.Err = errors.Join(endpoints.ErrUnauthorized, ErrPaymentRequired)
		e.Message = fmt.Sprintf("%s would not run %s without payment (HTTP 402): the account's included Inference Providers credits are used up — add credits or subscribe to PRO at https://huggingface.co/settings/billing, or run the task on a local endpoint%s", c.where(provider), model, said)
	case status == http.StatusForbidden && hf && mentionsGate(lower):
		e.Err = endpoints.ErrUnauthorized
		e.Message = fmt.Sprintf("%s is a gated model and this token has no access (HTTP 403) — accept its conditions at https://huggingface.co/%s with the token's account, or pick another model", model, model)
	case status == http.StatusForbidden && hf:
		e.Err = endpoints.ErrUnauthorized
		e.Message = "Hugging Face refused the token (HTTP 403) — give it the \"Make calls to Inference Providers\" permission or create a new one (https://huggingface.co/settings/tokens)" + said
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Err = endpoints.ErrUnauthorized
		e.Message = fmt.Sprintf("%s refused the request (HTTP %d) — Chorus sends no credentials to local servers; allow unauthenticated access on it%s", c.where(provider), status, said)
	case status == http.StatusNotFound || status == http.StatusGone ||
		(status == http.StatusBadRequest && mentionsUnserved(lower)):
		e.Err = endpoints.ErrUnavailable
		switch {
		case other:
			e.Message = fmt.Sprintf("%s is not served by the %s provider (HTTP %d) — another provider, candidate or a local endpoint may serve it (run `chorus models sync` to refresh which providers serve it)%s", model, provider, status, said)
		case hf:
			e.Message = fmt.Sprintf("%s is not served by Hugging Face's hf-inference provider (HTTP %d) — another candidate or a local endpoint may serve it%s", model, status, said)
		default:
			e.Message = fmt.Sprintf("%s is not served by %s (HTTP %d)%s", model, c.where(provider), status, said)
		}
	case status == http.StatusRequestEntityTooLarge:
		e.Err = endpoints.ErrBadInput
		e.Message = fmt.Sprintf("the input is too large for %s (HTTP 413) — use a smaller or shorter file", c.where(provider))
	case status == http.StatusUnprocessableEntity && other:
		e.Err = endpoints.ErrUnavailable
		e.Message = fmt.Sprintf("%s rejected the request for %s (HTTP 422) — its app for this model takes other inputs; another provider or candidate may run it%s", c.where(provider), model, said)
	case status == http.StatusUnprocessableEntity:
		e.Err = endpoints.ErrBadInput
		e.Message = fmt.Sprintf("%s rejected the input (HTTP 422)%s", c.where(provider), said)
	default:
		e.Err = endpoints.ErrUnavailable
		e.Message = fmt.Sprintf("%s could not run the model (HTTP %d)%s", c.where(provider), status, said)
	}
	return e
}

func mentionsGate(lower string) bool {
	for _, w := range []string{"gated", "restricted", "authorized list", "ask for access", "access to model"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

func mentionsUnserved(lower string) bool {
	for _, w := range []string{"not supported", "does not exist", "not found", "no longer supported", "not available", "not deployed"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// ServerSaid renders the server's own message as a suffix, when there is one.
func ServerSaid(msg string) string {
	if msg == "" {
		return ""
	}
	return fmt.Sprintf(" (server said: %q)", msg)
}

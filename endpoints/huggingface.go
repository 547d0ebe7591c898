package endpoints

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults for HFOptions.
const (
	// DefaultHFBaseURL is Hugging Face's own inference provider behind the
	// router.
	DefaultHFBaseURL = "https://router.huggingface.co/hf-inference"
	// DefaultHFMaxWait bounds the wait for a loading model.
	DefaultHFMaxWait = 2 * time.Minute
	// DefaultHFMaxRetries bounds the retries after HTTP 429.
	DefaultHFMaxRetries = 4
	// DefaultHFBackoff is the first pause after a 429 without Retry-After.
	DefaultHFBackoff = time.Second

	hfMaxBackoff  = 30 * time.Second
	hfMaxResponse = 512 << 20
)

// HFOptions configures a HuggingFaceEndpoint.
type HFOptions struct {
	// BaseURL is the inference base; requests go to {BaseURL}/models/{id}.
	// Empty means DefaultHFBaseURL.
	BaseURL string
	// Token is the Hugging Face access token.
	Token string
	// MaxWait bounds how long a call waits for a loading model (HTTP 503).
	// Zero means DefaultHFMaxWait; a negative value gives up at once.
	MaxWait time.Duration
	// MaxRetries bounds the retries after HTTP 429. Zero means
	// DefaultHFMaxRetries; a negative value never retries.
	MaxRetries int
	// Backoff is the first pause after a 429 without Retry-After (it
	// doubles on each retry, up to 30s) and the pause before retrying a
	// 5xx answer. Zero means DefaultHFBackoff.
	Backoff time.Duration
	// HTTPClient makes the requests; nil means a client without a timeout
	// (the context bounds every call).
	HTTPClient *http.Client
}

// HuggingFaceEndpoint runs models on the Hugging Face Inference API
// (provider hf-inference), with the payloads of the official client. It
// waits for loading models, backs off on rate limits and classifies every
// failure with this package's sentinel errors. It is safe for concurrent
// use.
type HuggingFaceEndpoint struct {
	c hfCaller
}

// NewHuggingFace returns an endpoint for the Inference API.
func NewHuggingFace(opts HFOptions) *HuggingFaceEndpoint {
	base := strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/")
	if base == "" {
		base = DefaultHFBaseURL
	}
	return &HuggingFaceEndpoint{c: newHFCaller(HuggingFace, base, strings.TrimSpace(opts.Token), opts)}
}

func newHFCaller(kind Kind, base, token string, opts HFOptions) hfCaller {
	c := hfCaller{kind: kind, base: base, token: token, client: opts.HTTPClient,
		maxWait: opts.MaxWait, maxRetries: opts.MaxRetries, backoff: opts.Backoff}
	if c.client == nil {
		c.client = &http.Client{}
	}
	if c.maxWait == 0 {
		c.maxWait = DefaultHFMaxWait
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultHFMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.backoff <= 0 {
		c.backoff = DefaultHFBackoff
	}
	return c
}

// Kind returns HuggingFace.
func (e *HuggingFaceEndpoint) Kind() Kind { return HuggingFace }

// Check reports whether the endpoint could run model for task: a token is
// set and the task has a Hugging Face request shape. It does not touch the
// network; whether the provider serves a model is learnt from the call.
func (e *HuggingFaceEndpoint) Check(ctx context.Context, task, model string) error {
	if e.c.token == "" {
		return &hfError{msg: "no Hugging Face token — set HF_TOKEN or huggingface.token (https://huggingface.co/settings/tokens)", errs: []error{ErrUnauthorized}}
	}
	if !HFTaskSupported(task) {
		return hfUnsupported(task)
	}
	if _, err := hfModelPath(model); err != nil {
		return err
	}
	return nil
}

// Infer runs req.Model on the Inference API.
func (e *HuggingFaceEndpoint) Infer(ctx context.Context, req Request) (Result, error) {
	return e.c.infer(ctx, req)
}

// hfError is an error whose message is written for the user, classified by
// the sentinels (and causes) it wraps.
type hfError struct {
	msg  string
	errs []error
}

func (e *hfError) Error() string   { return e.msg }
func (e *hfError) Unwrap() []error { return e.errs }

// hfCaller speaks the Inference API protocol to one server, with the retry
// rules of Hugging Face: wait for loading models, back off on 429, retry a
// 5xx once.
type hfCaller struct {
	kind       Kind
	base       string
	token      string
	client     *http.Client
	maxWait    time.Duration // negative: never wait
	maxRetries int
	backoff    time.Duration
}

// where names the server in messages.
func (c *hfCaller) where() string {
	if c.kind == HuggingFace {
		return "Hugging Face"
	}
	return "the local server " + c.base
}

// hfModelPath validates a model id and escapes it for a URL path, keeping
// the slash between owner and name.
func hfModelPath(model string) (string, error) {
	m := strings.TrimSpace(model)
	if m == "" {
		return "", hfBadInput("no model id")
	}
	segs := strings.Split(m, "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, " \t\r\n?#\\") {
			return "", hfBadInput("model id %q is not a Hugging Face model id (owner/name)", model)
		}
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/"), nil
}

func (c *hfCaller) infer(ctx context.Context, req Request) (Result, error) {
	if IsControlNetTask(req.Task) || !HFTaskSupported(req.Task) {
		return Result{}, fmt.Errorf("%s %s: %w", c.kind, req.Model, hfUnsupported(req.Task))
	}
	path, err := hfModelPath(req.Model)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", c.kind, err)
	}
	hr, err := buildHFRequest(req.Task, req.Model, req.Args)
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", c.kind, req.Model, err)
	}
	status, ctype, body, err := c.exchange(ctx, req, c.base+"/models/"+path+hr.Route, hr)
	if err != nil {
		return Result{}, err
	}
	res, err := parseHFResponse(req.Task, req.Args, ctype, body)
	if err != nil {
		return Result{}, &HTTPError{Kind: c.kind, Model: req.Model, Status: status,
			Message: err.Error() + " — the model does not answer like a " + req.Task + " model; another candidate may", Err: ErrUnavailable}
	}
	return res, nil
}

// exchange posts hr until it succeeds or a rule gives up, and returns the
// successful answer.
func (c *hfCaller) exchange(ctx context.Context, req Request, target string, hr hfRequest) (int, string, []byte, error) {
	start := time.Now()
	waitForModel := false
	rateRetries := 0
	retried5xx := false
	for {
		resp, err := c.post(ctx, target, hr, waitForModel)
		if err != nil {
			return 0, "", nil, c.netError(ctx, req.Model, err)
		}
		body, err := hfReadAll(resp.Body)
		resp.Body.Close()
		if errors.Is(err, errHFTooLarge) {
			return 0, "", nil, &HTTPError{Kind: c.kind, Model: req.Model, Status: resp.StatusCode, Err: ErrUnavailable, Message: err.Error()}
		}
		if err != nil {
			return 0, "", nil, c.netError(ctx, req.Model, err)
		}
		status := resp.StatusCode
		if status >= 200 && status < 300 {
			return status, resp.Header.Get("Content-Type"), body, nil
		}
		msg := hfMessage(body)

		switch est, loading := hfLoading(status, body); {
		case loading:
			left := c.maxWait - time.Since(start)
			if c.maxWait < 0 {
				return 0, "", nil, &HTTPError{Kind: c.kind, Model: req.Model, Status: status, Err: ErrUnavailable,
					Message: fmt.Sprintf("%s is loading the model (about %s) and waiting is turned off — try again later or set huggingface.max_wait", c.where(), hfRound(est))}
			}
			if left <= 0 {
				return 0, "", nil, &HTTPError{Kind: c.kind, Model: req.Model, Status: status, Err: ErrUnavailable,
					Message: fmt.Sprintf("%s is still loading the model after %s — try again later or raise huggingface.max_wait", c.where(), hfRound(time.Since(start)))}
			}
			wait := min(max(est, c.backoff), left)
			if hfDeadlineBefore(ctx, wait) {
				return 0, "", nil, &HTTPError{Kind: c.kind, Model: req.Model, Status: status, Err: ErrUnavailable,
					Message: fmt.Sprintf("%s is loading the model (about %s), longer than this task has left — try again later", c.where(), hfRound(est))}
			}
			hfReport(req, Progress{Message: fmt.Sprintf("%s is loading %s (about %s)", c.where(), req.Model, hfRound(est)), Wait: wait})
			if err := hfSleep(ctx, wait); err != nil {
				return 0, "", nil, fmt.Errorf("%s %s: stopped while waiting for the model to load: %w", c.kind, req.Model, err)
			}
			// Ask the server to hold the retry until the model is ready.
			waitForModel = true
			continue

		case status == http.StatusTooManyRequests:
			if rateRetries >= c.maxRetries {
				return 0, "", nil, &HTTPError{Kind: c.kind, Model: req.Model, Status: status, Err: ErrRateLimited,
					Message: fmt.Sprintf("%s kept rate-limiting requests after %d retries — wait a few minutes, or use a token with a higher quota (https://huggingface.co/pricing)", c.where(), rateRetries)}
			}
			wait, fromHeader := hfRetryAfter(resp.Header, time.Now())
			if !fromHeader {
				wait = hfBackoff(c.backoff, rateRetries)
			}
			if limit := max(c.maxWait, hfMaxBackoff); wait > limit || hfDeadlineBefore(ctx, wait) {
				return 0, "", nil, &HTTPError{Kind: c.kind, Model: req.Model, Status: status, Err: ErrRateLimited,
					Message: fmt.Sprintf("%s asks to wait %s before the next request (Retry-After) — try again later", c.where(), hfRound(wait))}
			}
			rateRetries++
			hfReport(req, Progress{Message: fmt.Sprintf("rate limited by %s (HTTP 429); retry %d of %d in %s", c.where(), rateRetries, c.maxRetries, hfRound(wait)), Wait: wait})
			if err := hfSleep(ctx, wait); err != nil {
				return 0, "", nil, fmt.Errorf("%s %s: stopped while backing off after HTTP 429: %w", c.kind, req.Model, err)
			}
			continue

		case status == http.StatusInternalServerError || status == http.StatusBadGateway ||
			status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
			if !retried5xx && !hfDeadlineBefore(ctx, c.backoff) {
				retried5xx = true
				hfReport(req, Progress{Message: fmt.Sprintf("%s answered HTTP %d for %s; retrying once", c.where(), status, req.Model), Wait: c.backoff})
				if err := hfSleep(ctx, c.backoff); err != nil {
					return 0, "", nil, fmt.Errorf("%s %s: stopped before retrying HTTP %d: %w", c.kind, req.Model, status, err)
				}
				continue
			}
			return 0, "", nil, &HTTPError{Kind: c.kind, Model: req.Model, Status: status, Err: ErrUnavailable,
				Message: fmt.Sprintf("%s failed to run the model%s — try another model or try again later", c.where(), hfQuote(msg))}
		}
		return 0, "", nil, c.statusError(req.Model, status, msg)
	}
}

func (c *hfCaller) post(ctx context.Context, target string, hr hfRequest, waitForModel bool) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(hr.Body))
	if err != nil {
		return nil, err
	}
	if hr.ContentType != "" {
		r.Header.Set("Content-Type", hr.ContentType)
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
func (c *hfCaller) netError(ctx context.Context, model string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: stopped: %w", c.kind, model, ctxErr)
	}
	fix := "check the network connection or huggingface.base_url"
	if c.kind != HuggingFace {
		fix = "start the server or set local.url"
	}
	return &hfError{
		msg:  fmt.Sprintf("%s %s: %s is not reachable at %s — %s (%v)", c.kind, model, c.where(), c.base, fix, err),
		errs: []error{ErrUnreachable, err},
	}
}

// statusError classifies a final non-success status.
func (c *hfCaller) statusError(model string, status int, msg string) error {
	e := &HTTPError{Kind: c.kind, Model: model, Status: status}
	said := hfQuote(msg)
	hf := c.kind == HuggingFace
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized && hf && c.token == "":
		e.Err = ErrUnauthorized
		e.Message = "Hugging Face needs a token (HTTP 401) — set HF_TOKEN or huggingface.token (https://huggingface.co/settings/tokens)"
	case status == http.StatusUnauthorized && hf:
		e.Err = ErrUnauthorized
		e.Message = "Hugging Face rejected the token (HTTP 401) — set a valid token in HF_TOKEN or huggingface.token (https://huggingface.co/settings/tokens)" + said
	case status == http.StatusForbidden && hf && hfMentionsGate(lower):
		e.Err = ErrUnauthorized
		e.Message = fmt.Sprintf("%s is a gated model and this token has no access (HTTP 403) — accept its conditions at https://huggingface.co/%s with the token's account, or pick another model", model, model)
	case status == http.StatusForbidden && hf:
		e.Err = ErrUnauthorized
		e.Message = "Hugging Face refused the token (HTTP 403) — give it the \"Make calls to Inference Providers\" permission or create a new one (https://huggingface.co/settings/tokens)" + said
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Err = ErrUnauthorized
		e.Message = fmt.Sprintf("%s refused the request (HTTP %d) — Chorus sends no credentials to local servers; allow unauthenticated access on it%s", c.where(), status, said)
	case status == http.StatusNotFound || status == http.StatusGone ||
		(status == http.StatusBadRequest && hfMentionsUnserved(lower)):
		e.Err = ErrUnavailable
		if hf {
			e.Message = fmt.Sprintf("%s is not served by Hugging Face's hf-inference provider (HTTP %d) — another candidate or a local endpoint may serve it%s", model, status, said)
		} else {
			e.Message = fmt.Sprintf("%s is not served by %s (HTTP %d)%s", model, c.where(), status, said)
		}
	case status == http.StatusRequestEntityTooLarge:
		e.Err = ErrBadInput
		e.Message = fmt.Sprintf("the input is too large for %s (HTTP 413) — use a smaller or shorter file", c.where())
	case status == http.StatusUnprocessableEntity:
		e.Err = ErrBadInput
		e.Message = fmt.Sprintf("%s rejected the input (HTTP 422)%s", c.where(), said)
	default:
		e.Err = ErrUnavailable
		e.Message = fmt.Sprintf("%s could not run the model (HTTP %d)%s", c.where(), status, said)
	}
	return e
}

func hfMentionsGate(lower string) bool {
	for _, w := range []string{"gated", "restricted", "authorized list", "ask for access", "access to model"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

func hfMentionsUnserved(lower string) bool {
	for _, w := range []string{"not supported", "does not exist", "not found", "no longer supported", "not available", "not deployed"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// hfQuote renders the server's own message as a suffix, when there is one.
func hfQuote(msg string) string {
	if msg == "" {
		return ""
	}
	return fmt.Sprintf(" (server said: %q)", msg)
}

// hfLoading recognises Hugging Face's "model is loading" answer: HTTP 503
// with {"error": "… is currently loading", "estimated_time": seconds}.
func hfLoading(status int, body []byte) (time.Duration, bool) {
	if status != http.StatusServiceUnavailable {
		return 0, false
	}
	var b struct {
		Error         any      `json:"error"`
		EstimatedTime *float64 `json:"estimated_time"`
	}
	if json.Unmarshal(body, &b) != nil {
		return 0, false
	}
	msg, _ := b.Error.(string)
	if b.EstimatedTime == nil && !strings.Contains(strings.ToLower(msg), "loading") {
		return 0, false
	}
	var est time.Duration
	if b.EstimatedTime != nil && *b.EstimatedTime > 0 && !math.IsInf(*b.EstimatedTime, 0) {
		est = time.Duration(min(*b.EstimatedTime, 24*3600) * float64(time.Second))
	}
	return est, true
}

// hfRetryAfter reads Retry-After as seconds or an HTTP date.
func hfRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		// Capped so a huge value cannot overflow into a short wait.
		return time.Duration(min(secs, hfMaxRetryAfter)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// hfMaxRetryAfter caps a Retry-After in seconds (a day): longer is as good
// as never, and the multiplication must not overflow.
const hfMaxRetryAfter = 24 * 3600

// hfBackoff is the pause before retry n (from 0) after a 429 without
// Retry-After: base doubling up to hfMaxBackoff, without shifting base
// into an overflow however many retries are allowed.
func hfBackoff(base time.Duration, n int) time.Duration {
	wait := base
	for i := 0; i < n && wait < hfMaxBackoff; i++ {
		wait *= 2
	}
	return min(wait, hfMaxBackoff)
}

// hfDeadlineBefore reports whether ctx ends before d from now.
func hfDeadlineBefore(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < d
}

// hfSleep waits d or until ctx ends, whichever is first.
func hfSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func hfReport(req Request, p Progress) {
	if req.Progress != nil {
		req.Progress(p)
	}
}

// hfRound renders a duration for people: "21s", "1.5s", "250ms".
func hfRound(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

var errHFTooLarge = errors.New("the answer is larger than 512 MiB; refusing to hold it in memory")

// hfReadAll reads a response body up to hfMaxResponse.
func hfReadAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, hfMaxResponse+1))
	if err != nil {
		return nil, err
	}
	if len(b) > hfMaxResponse {
		return nil, errHFTooLarge
	}
	return b, nil
}

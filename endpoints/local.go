package endpoints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Local server protocols.
const (
	// ProtocolJarvis is HuggingGPT's models_server
	// (microsoft/JARVIS hugginggpt/server/models_server.py).
	ProtocolJarvis = "jarvis"
	// ProtocolHF is a self-hosted server speaking the Hugging Face
	// Inference API payloads at {URL}/models/{model_id}.
	ProtocolHF = "hf"
)

// DefaultLocalCheckTTL is how long Check trusts a reachability or model
// status answer.
const DefaultLocalCheckTTL = 10 * time.Second

// localProbeTimeout bounds one reachability or status probe.
const localProbeTimeout = 5 * time.Second

// LocalOptions configures a LocalEndpoint.
type LocalOptions struct {
	// URL is the server's base URL, e.g. http://localhost:8005. Empty
	// leaves the endpoint unconfigured: Check and Infer say to set local.url.
	URL string
	// Protocol is ProtocolJarvis (the default when empty) or ProtocolHF.
	Protocol string
	// HTTPClient makes the requests; nil means a client without a timeout
	// (the context bounds every call).
	HTTPClient *http.Client
	// PublicDir is models_server's public directory as seen from this
	// machine (hugginggpt/server/public). models_server answers generated
	// files as paths under it ({"path": "/images/1a2b.png"}) and does not
	// serve them over HTTP, so when the server runs on this machine (or
	// shares a file system with it) the files are read from here. When it
	// is empty, or a file is not there, the file is fetched from
	// {URL}{path}, which works behind a static file server.
	PublicDir string
	// CheckTTL is how long reachability and model status are cached; zero
	// means DefaultLocalCheckTTL.
	CheckTTL time.Duration
	// MaxWait, MaxRetries and Backoff govern retries for the hf protocol,
	// as in HFOptions.
	MaxWait    time.Duration
	MaxRetries int
	Backoff    time.Duration
}

// LocalEndpoint runs models on a self-hosted inference server: HuggingGPT's
// models_server (protocol jarvis) or a server that speaks the Hugging Face
// Inference API (protocol hf). ControlNet tasks are served only by the
// jarvis protocol. It is safe for concurrent use.
type LocalEndpoint struct {
	url       string
	protocol  string
	client    *http.Client
	publicDir string
	ttl       time.Duration
	hf        hfCaller

	mu     sync.Mutex
	probes map[string]*localProbe
}

// localProbe is one reachability or status probe, shared by every Check
// that arrives while it runs and cached for the TTL after.
type localProbe struct {
	done chan struct{}
	err  error
	at   time.Time
}

// NewLocal returns an endpoint for the server at opts.URL.
func NewLocal(opts LocalOptions) *LocalEndpoint {
	e := &LocalEndpoint{
		url:       strings.TrimRight(strings.TrimSpace(opts.URL), "/"),
		protocol:  strings.ToLower(strings.TrimSpace(opts.Protocol)),
		client:    opts.HTTPClient,
		publicDir: opts.PublicDir,
		ttl:       opts.CheckTTL,
		probes:    map[string]*localProbe{},
	}
	if e.protocol == "" {
		e.protocol = ProtocolJarvis
	}
	if e.client == nil {
		e.client = &http.Client{}
	}
	if e.ttl <= 0 {
		e.ttl = DefaultLocalCheckTTL
	}
	e.hf = newHFCaller(Local, e.url, "", HFOptions{
		MaxWait: opts.MaxWait, MaxRetries: opts.MaxRetries, Backoff: opts.Backoff, HTTPClient: e.client,
	})
	return e
}

// Kind returns Local.
func (e *LocalEndpoint) Kind() Kind { return Local }

// Protocol returns the protocol the endpoint speaks.
func (e *LocalEndpoint) Protocol() string { return e.protocol }

// configError explains what is missing before the endpoint can run anything.
func (e *LocalEndpoint) configError() error {
	if e.url == "" {
		return &hfError{msg: "no local inference server is configured — set local.url (HuggingGPT's models_server listens on http://localhost:8005)", errs: []error{ErrUnavailable}}
	}
	if e.protocol != ProtocolJarvis && e.protocol != ProtocolHF {
		return &hfError{msg: fmt.Sprintf("local.protocol %q is unknown — use jarvis or hf", e.protocol), errs: []error{ErrUnavailable}}
	}
	return nil
}

// supports reports whether the protocol can express task.
func (e *LocalEndpoint) supports(task string) error {
	if e.protocol == ProtocolJarvis {
		if HFTaskSupported(task) || IsControlNetTask(task) {
			return nil
		}
		return fmt.Errorf("%w: HuggingGPT's models_server has no task %q", ErrUnsupported, task)
	}
	if IsControlNetTask(task) || !HFTaskSupported(task) {
		return hfUnsupported(task)
	}
	return nil
}

// Check reports whether the server is reachable and, for the jarvis
// protocol, whether it has model loaded. Answers are cached for the TTL and
// concurrent checks share one probe.
func (e *LocalEndpoint) Check(ctx context.Context, task, model string) error {
	if err := e.configError(); err != nil {
		return err
	}
	if err := e.supports(task); err != nil {
		return err
	}
	path, err := hfModelPath(model)
	if err != nil {
		return err
	}
	if err := e.cached(ctx, "running", e.probeRunning); err != nil {
		return err
	}
	if e.protocol != ProtocolJarvis {
		return nil
	}
	return e.cached(ctx, "status/"+model, func(pctx context.Context) error {
		return e.probeStatus(pctx, model, path)
	})
}

// Infer runs req.Model on the server.
func (e *LocalEndpoint) Infer(ctx context.Context, req Request) (Result, error) {
	if err := e.configError(); err != nil {
		return Result{}, err
	}
	if err := e.supports(req.Task); err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", Local, req.Model, err)
	}
	var (
		res Result
		err error
	)
	if e.protocol == ProtocolJarvis {
		res, err = e.inferJarvis(ctx, req)
	} else {
		res, err = e.hf.infer(ctx, req)
	}
	if err != nil {
		e.forgetAfter(req.Model, err)
	}
	return res, err
}

// forgetAfter drops cached answers a failure has shown to be stale, so the
// next Check probes again instead of routing more tasks to a dead server.
func (e *LocalEndpoint) forgetAfter(model string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case errors.Is(err, ErrUnreachable):
		clear(e.probes)
	case errors.Is(err, ErrUnavailable):
		delete(e.probes, "status/"+model)
	}
}

// cached runs probe at most once per TTL for key and returns its answer.
func (e *LocalEndpoint) cached(ctx context.Context, key string, probe func(context.Context) error) error {
	e.mu.Lock()
	p := e.probes[key]
	if p != nil {
		select {
		case <-p.done:
			if time.Since(p.at) > e.ttl {
				p = nil
			}
		default: // in flight: share it
		}
	}
	if p == nil {
		p = &localProbe{done: make(chan struct{})}
		e.probes[key] = p
		// The probe outlives a caller that gives up, so the others
		// waiting on it still get an answer; its own timeout bounds it.
		go func() {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), localProbeTimeout)
			defer cancel()
			err := probe(pctx)
			e.mu.Lock()
			p.err, p.at = err, time.Now()
			e.mu.Unlock()
			close(p.done)
		}()
	}
	e.mu.Unlock()
	select {
	case <-p.done:
		e.mu.Lock()
		defer e.mu.Unlock()
		return p.err
	case <-ctx.Done():
		return fmt.Errorf("checking the local server %s: %w", e.url, ctx.Err())
	}
}

func (e *LocalEndpoint) unreachable(err error) error {
	fix := "start HuggingGPT's models_server or set local.url"
	if e.protocol == ProtocolHF {
		fix = "start the inference server or set local.url"
	}
	return &hfError{msg: fmt.Sprintf("local server %s is not reachable — %s (%v)", e.url, fix, err), errs: []error{ErrUnreachable, err}}
}

// get fetches a small JSON document from the server.
func (e *LocalEndpoint) get(ctx context.Context, path string) (int, []byte, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, e.url+path, nil)
	if err != nil {
		return 0, nil, err
	}
	r.Header.Set("User-Agent", "chorus")
	resp, err := e.client.Do(r)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := hfReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// probeRunning asks models_server's GET /running; for the hf protocol any
// HTTP answer from the root shows the server is up.
func (e *LocalEndpoint) probeRunning(ctx context.Context) error {
	if e.protocol == ProtocolHF {
		if _, _, err := e.get(ctx, "/"); err != nil {
			return e.unreachable(err)
		}
		return nil
	}
	status, body, err := e.get(ctx, "/running")
	if err != nil {
		return e.unreachable(err)
	}
	var ans struct {
		Running bool `json:"running"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ans) != nil {
		return &HTTPError{Kind: Local, Status: status, Err: ErrUnavailable,
			Message: fmt.Sprintf("%s answered GET /running unlike HuggingGPT's models_server — check local.url, or set local.protocol: hf for a Hugging Face-style server", e.url)}
	}
	if !ans.Running {
		return &hfError{msg: fmt.Sprintf("local server %s says it is not running models yet — wait for it to finish loading", e.url), errs: []error{ErrUnavailable}}
	}
	return nil
}

// probeStatus asks models_server's GET /status/{model}.
func (e *LocalEndpoint) probeStatus(ctx context.Context, model, path string) error {
	status, body, err := e.get(ctx, "/status/"+path)
	if err != nil {
		return e.unreachable(err)
	}
	var ans struct {
		Loaded bool `json:"loaded"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ans) != nil {
		return &HTTPError{Kind: Local, Model: model, Status: status, Err: ErrUnavailable,
			Message: fmt.Sprintf("%s answered GET /status/%s unlike HuggingGPT's models_server — check local.url and local.protocol", e.url, model)}
	}
	if !ans.Loaded {
		return &hfError{msg: fmt.Sprintf("model %s is not loaded on the local server %s — add it to models_server's deployment (local_deployment: full) and restart it, or pick another model", model, e.url), errs: []error{ErrUnavailable}}
	}
	return nil
}

// Package local is the local endpoint kind: models on a self-hosted
// inference server. With protocol jarvis it speaks HuggingGPT's
// models_server (probes of GET /running and /status/{model}, shared and
// cached; POST /models/{model} with its own body shapes; generated files
// read from its public directory); with protocol hf it speaks the Hugging
// Face Inference API through the huggingface package's client, without a
// token. ControlNet tasks are served only by models_server.
package local

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
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

// DefaultCheckTTL is how long Check trusts a reachability or model
// status answer.
const DefaultCheckTTL = 10 * time.Second

// probeTimeout bounds one reachability or status probe.
const probeTimeout = 5 * time.Second

// Options configures an Endpoint.
type Options struct {
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
	// means DefaultCheckTTL.
	CheckTTL time.Duration
	// MaxWait, MaxRetries and Backoff govern retries for the hf protocol,
	// as in huggingface.Options.
	MaxWait    time.Duration
	MaxRetries int
	Backoff    time.Duration
	// MaxBodyBytes bounds an answer or a generated file: larger ones are
	// refused (by Content-Length before reading when it is given). Zero
	// means endpoints.DefaultMaxBytes (512 MB).
	MaxBodyBytes int64
	// TempDir holds large generated files, copied there instead of held in
	// memory (endpoints.Blob.Path); "" means os.TempDir().
	TempDir string
}

// Endpoint runs models on a self-hosted inference server: HuggingGPT's
// models_server (protocol jarvis) or a server that speaks the Hugging Face
// Inference API (protocol hf). ControlNet tasks are served only by the
// jarvis protocol. It is safe for concurrent use.
type Endpoint struct {
	url       string
	protocol  string
	client    *http.Client
	publicDir string
	hf        *huggingface.Client
	spool     endpoints.Spool

	// probes share and cache the /running and /status probes.
	probes endpoints.Probes[string, struct{}]
}

// New returns an endpoint for the server at opts.URL.
func New(opts Options) *Endpoint {
	e := &Endpoint{
		url:       strings.TrimRight(strings.TrimSpace(opts.URL), "/"),
		protocol:  strings.ToLower(strings.TrimSpace(opts.Protocol)),
		client:    opts.HTTPClient,
		publicDir: opts.PublicDir,
		probes:    endpoints.Probes[string, struct{}]{TTL: opts.CheckTTL, Timeout: probeTimeout},
		spool:     endpoints.Spool{Dir: opts.TempDir, Max: opts.MaxBodyBytes},
	}
	if e.protocol == "" {
		e.protocol = ProtocolJarvis
	}
	// Nothing the server answers sends Chorus elsewhere: a redirect off
	// local.url is refused, and no body is re-sent across one.
	e.client = scope.Credentialed(e.client)
	if e.probes.TTL <= 0 {
		e.probes.TTL = DefaultCheckTTL
	}
	e.hf = huggingface.NewClient(skills.EndpointLocal, huggingface.Options{
		BaseURL: e.url, MaxWait: opts.MaxWait, MaxRetries: opts.MaxRetries, Backoff: opts.Backoff, HTTPClient: e.client,
		MaxBodyBytes: opts.MaxBodyBytes, TempDir: opts.TempDir,
	})
	return e
}

// Kind returns skills.EndpointLocal.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointLocal }

// Host is the local server's host (endpoints.Hoster).
func (e *Endpoint) Host(task, model string) string {
	if e.url == "" {
		return ""
	}
	return endpoints.HostKey(e.url)
}

// Protocol returns the protocol the endpoint speaks.
func (e *Endpoint) Protocol() string { return e.protocol }

// configError explains what is missing before the endpoint can run anything.
func (e *Endpoint) configError() error {
	if e.url == "" {
		return endpoints.Explain("no local inference server is configured — set local.url (HuggingGPT's models_server listens on http://localhost:8005)", endpoints.ErrUnavailable)
	}
	if e.protocol != ProtocolJarvis && e.protocol != ProtocolHF {
		return endpoints.Explain(fmt.Sprintf("local.protocol %q is unknown — use jarvis or hf", e.protocol), endpoints.ErrUnavailable)
	}
	return nil
}

// supports reports whether the protocol can express task.
func (e *Endpoint) supports(task string) error {
	if e.protocol == ProtocolJarvis {
		if hfapi.Supported(task) || hfapi.IsControlNetTask(task) {
			return nil
		}
		return fmt.Errorf("%w: HuggingGPT's models_server has no task %q", endpoints.ErrUnsupported, task)
	}
	if hfapi.IsControlNetTask(task) || !hfapi.Supported(task) {
		return hfapi.Unsupported(task)
	}
	return nil
}

// Check reports whether the server is reachable and, for the jarvis
// protocol, whether it has model loaded. Answers are cached for the TTL and
// concurrent checks share one probe.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	if err := e.configError(); err != nil {
		return err
	}
	if err := e.supports(task); err != nil {
		return err
	}
	path, err := hfapi.ModelPath(model)
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
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	if err := e.configError(); err != nil {
		return endpoints.Result{}, err
	}
	if err := e.supports(req.Task); err != nil {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", skills.EndpointLocal, req.Model, err)
	}
	var (
		res endpoints.Result
		err error
	)
	if e.protocol == ProtocolJarvis {
		res, err = e.inferJarvis(ctx, req)
	} else {
		res, err = e.hf.Infer(ctx, req)
	}
	if err != nil {
		e.forgetAfter(req.Model, err)
	}
	return res, err
}

// forgetAfter drops cached answers a failure has shown to be stale, so the
// next Check probes again instead of routing more tasks to a dead server.
func (e *Endpoint) forgetAfter(model string, err error) {
	switch {
	case errors.Is(err, endpoints.ErrUnreachable):
		e.probes.ForgetAll()
	case errors.Is(err, endpoints.ErrUnavailable):
		e.probes.Forget("status/" + model)
	}
}

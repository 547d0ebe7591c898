// Package openai is the openai endpoint kind: models on servers that speak
// OpenAI's HTTP API — LocalAI, vLLM, llama.cpp's server, speaches,
// Kokoro-FastAPI, or OpenAI itself — on this machine or behind a cluster's
// load balancer. Each configured server lists the tasks and models it
// serves; those models are discovered as candidates for their tasks.
// GET /v1/models tells whether a server is up and has a model (cached);
// images go to /v1/images/generations and /v1/images/edits, speech to
// /v1/audio/transcriptions and /v1/audio/speech, and image and text tasks
// to /v1/chat/completions, with images as data URLs (tasks.go).
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Server is one OpenAI-compatible server.
type Server struct {
	// Name is how messages and the report name it ("localai"); "" means
	// "openai[N]".
	Name string
	// URL is the base URL, with or without the trailing /v1
	// ("http://localhost:8080" and "http://localhost:8080/v1" are the same).
	URL string
	// Key is the bearer token, if the server wants one.
	Key string
	// KeyEnv names the variable Key was read from, for messages.
	KeyEnv string
	// KeyVar is the variable the key is read from when the configuration
	// names none (config.OpenAIKeyVar), for the fix of a refused key.
	KeyVar string
	// Voice is the voice text-to-speech asks for; "" means "alloy", the
	// name every OpenAI-compatible speech server accepts.
	Voice string
	// Models lists the model ids the server serves, by task name.
	Models map[string][]string
	// Index is the server's place in the configuration's openai list, for
	// messages that name the key to fix ("openai[1].key").
	Index int

	// slot is the server's place in Options.Servers: its probe's key,
	// whatever Index says.
	slot int
}

// label is the server as messages name it.
func (s *Server) label() string {
	key := fmt.Sprintf("openai[%d]", s.Index)
	if s.Name == "" || s.Name == key {
		return key
	}
	return fmt.Sprintf("%s (%s)", key, s.Name)
}

// name is the server's short name for the report.
func (s *Server) name() string {
	if s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("openai[%d]", s.Index)
}

// serves reports whether the server lists model for task.
func (s *Server) serves(task, model string) bool {
	return slices.ContainsFunc(s.Models[task], func(m string) bool { return strings.EqualFold(m, model) })
}

// DefaultCheckTTL is how long a server's model list is trusted.
const DefaultCheckTTL = 15 * time.Second

// Options configures the endpoint.
type Options struct {
	// Servers are the configured servers, in the order they are tried for
	// a model several of them serve.
	Servers []Server
	// HTTPClient makes the requests; nil means a client without a timeout
	// (contexts bound every call).
	HTTPClient *http.Client
	// CheckTTL is how long a model list is cached; zero means
	// DefaultCheckTTL.
	CheckTTL time.Duration
	// MaxBodyBytes bounds an answer or a produced file; zero means
	// endpoints.DefaultMaxBytes.
	MaxBodyBytes int64
	// TempDir holds large produced files; "" means os.TempDir().
	TempDir string
	// DownloadTransport carries downloads of result URLs on other hosts
	// than the server's own; nil dials public addresses only (tests point
	// it at a fake CDN).
	DownloadTransport http.RoundTripper
}

// Endpoint runs models on the configured OpenAI-compatible servers. It is
// safe for concurrent use.
type Endpoint struct {
	servers  []*Server
	client   *http.Client
	spool    endpoints.Spool
	download http.RoundTripper

	// probes share and cache each server's GET /v1/models, by slot.
	probes endpoints.Probes[int, []string]
}

// New returns the endpoint for opts.Servers.
func New(opts Options) *Endpoint {
	e := &Endpoint{client: opts.HTTPClient, probes: endpoints.Probes[int, []string]{TTL: opts.CheckTTL, Timeout: probeTimeout},
		spool: endpoints.Spool{Dir: opts.TempDir, Max: opts.MaxBodyBytes}, download: opts.DownloadTransport}
	for i := range opts.Servers {
		s := opts.Servers[i]
		s.URL, s.slot = BaseURL(s.URL), i
		e.servers = append(e.servers, &s)
	}
	// The key goes only to the configured origin: no redirect of a call
	// leaves it, and none re-sends a body.
	e.client = scope.Credentialed(e.client)
	if e.probes.TTL <= 0 {
		e.probes.TTL = DefaultCheckTTL
	}
	return e
}

// BaseURL normalises a configured server URL: no trailing slash and no
// trailing /v1, which the routes add.
func BaseURL(u string) string {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	return strings.TrimSuffix(u, "/v1")
}

// Kind returns skills.EndpointOpenAI.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointOpenAI }

// candidates returns the servers configured with model for task, in
// configuration order.
func (e *Endpoint) candidates(task, model string) []*Server {
	var out []*Server
	for _, s := range e.servers {
		if s.serves(task, model) {
			out = append(out, s)
		}
	}
	return out
}

// notConfigured explains a model no server lists for task.
func (e *Endpoint) notConfigured(task, model string) error {
	if !Supports(task) {
		return fmt.Errorf("%w: OpenAI-compatible servers have no route for %s (they serve %s)", endpoints.ErrUnsupported, task, strings.Join(Tasks(), ", "))
	}
	if len(e.servers) == 0 {
		return endpoints.Explain("no OpenAI-compatible server is configured — add one under openai: in the config file", endpoints.ErrUnavailable)
	}
	return endpoints.Explain(fmt.Sprintf("no OpenAI-compatible server is configured with %s for %s — list it under openai[N].models.%s", model, task, task), endpoints.ErrUnavailable)
}

// Check reports whether a configured server lists model for task and is
// up with it loaded (GET /v1/models, cached). With several servers, any
// one ready is enough; otherwise the first one's reason comes back.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	servers := e.candidates(task, model)
	if len(servers) == 0 {
		return e.notConfigured(task, model)
	}
	var first error
	for _, s := range servers {
		err := e.ready(ctx, s, model)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// Discover offers the models the configuration lists for task, each once,
// in configuration order. Whether they are up is Check's business, so a
// server that is down shows as an excluded candidate with its reason
// rather than vanishing.
func (e *Endpoint) Discover(_ context.Context, task string) ([]endpoints.Offer, error) {
	var out []endpoints.Offer
	seen := map[string]bool{}
	for _, s := range e.servers {
		for _, m := range s.Models[task] {
			if seen[strings.ToLower(m)] {
				continue
			}
			seen[strings.ToLower(m)] = true
			out = append(out, endpoints.Offer{ID: m, Configured: true,
				Description: fmt.Sprintf("%s on the OpenAI-compatible server %s (%s)", m, s.name(), s.URL)})
		}
	}
	return out, nil
}

// Provider names the server a call of model for task tries first, so the
// model event and the report say which server ran it.
func (e *Endpoint) Provider(task, model string) string {
	if s := e.candidates(task, model); len(s) > 0 {
		return s[0].name()
	}
	return ""
}

// Host is the host of the servers with model for task, when they are all
// on one (endpoints.Hoster); "" when they are on several, any of which
// may answer.
func (e *Endpoint) Host(task, model string) string {
	host := ""
	for _, s := range e.candidates(task, model) {
		h := endpoints.HostKey(s.URL)
		if host != "" && h != host {
			return ""
		}
		host = h
	}
	return host
}

// Remote says why no server with model for task is local, or "" when one
// is (Infer then uses only the local ones, given Request.LocalOnly). A
// server is local when endpoints.IsLocalHost says its host is: judged from
// the URL, never from what DNS says at the moment.
func (e *Endpoint) Remote(task, model string) string {
	servers := e.candidates(task, model)
	if len(servers) == 0 || slices.ContainsFunc(servers, (*Server).local) {
		return ""
	}
	s := servers[0]
	host := s.URL
	if u, err := url.Parse(s.URL); err == nil {
		host = u.Host
	}
	return fmt.Sprintf("%s at %s is not on this machine or a private network", s.label(), host)
}

// local reports whether s is on this machine or a private network.
func (s *Server) local() bool {
	u, err := url.Parse(s.URL)
	return err == nil && endpoints.IsLocalHost(u.Hostname())
}

// Infer runs req.Model on the first configured server that serves it,
// going on to the next one that does when a server cannot be reached or
// fails on its side (a cluster behind two load balancers, a laptop and a
// workstation).
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	servers := e.candidates(req.Task, req.Model)
	if len(servers) == 0 {
		return endpoints.Result{}, e.notConfigured(req.Task, req.Model)
	}
	if req.LocalOnly {
		if servers = slices.DeleteFunc(servers, func(s *Server) bool { return !s.local() }); len(servers) == 0 {
			return endpoints.Result{}, endpoints.Explain(fmt.Sprintf("the local-only constraint rules out %s", e.Remote(req.Task, req.Model)), endpoints.ErrUnavailable)
		}
	}
	build, ok := routeFor(req.Task)
	if !ok {
		return endpoints.Result{}, e.notConfigured(req.Task, req.Model)
	}
	var firstErr error
	for i, s := range servers {
		res, err := build(e, ctx, s, req)
		if err == nil {
			res.Provider = s.name()
			return res, nil
		}
		e.forgetAfter(s, err)
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil || !failover(err) || i == len(servers)-1 {
			break
		}
		if req.Progress != nil {
			req.Progress(endpoints.Progress{Message: fmt.Sprintf("%s failed (%v); trying %s", servers[i].label(), err, servers[i+1].label())})
		}
	}
	return endpoints.Result{}, firstErr
}

// failover reports whether another server with the same model may succeed
// where err failed: one that could not be reached or failed on its side,
// not a refused key or a bad input.
func failover(err error) bool {
	if errors.Is(err, endpoints.ErrBadInput) || errors.Is(err, endpoints.ErrUnauthorized) {
		return false
	}
	var he *endpoints.HTTPError
	if errors.As(err, &he) {
		return he.Status >= 500 || he.Status == http.StatusTooManyRequests
	}
	return errors.Is(err, endpoints.ErrUnreachable)
}

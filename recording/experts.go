package recording

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Experts is the endpoints' side of a recording: which endpoint kinds were
// configured, what their readiness checks, discovery and provider naming
// answered, and every expert call with its result.
type Experts struct {
	Kinds       []skills.EndpointKind `json:"kinds"`
	Checks      []Check               `json:"checks,omitempty"`
	Discoveries []Discovery           `json:"discoveries,omitempty"`
	Providers   []Provider            `json:"providers,omitempty"`
	Calls       []Call                `json:"calls,omitempty"`
}

// Provider is the provider an endpoint said it would use for a model and
// task, last asked: without the network (endpoints.ProviderNamer), or
// Resolved by asking (endpoints.ProviderResolver).
type Provider struct {
	Kind     skills.EndpointKind `json:"kind"`
	Task     string              `json:"task"`
	Model    string              `json:"model"`
	Provider string              `json:"provider"`
	Resolved bool                `json:"resolved,omitempty"`
}

// Check is an endpoint's last readiness answer for a model and task.
type Check struct {
	Kind  skills.EndpointKind `json:"kind"`
	Task  string              `json:"task"`
	Model string              `json:"model"`
	Err   *Failure            `json:"error,omitempty"`
}

// Discovery is what an endpoint offered for a task.
type Discovery struct {
	Kind   skills.EndpointKind `json:"kind"`
	Task   string              `json:"task"`
	Offers []endpoints.Offer   `json:"offers,omitempty"`
	Err    *Failure            `json:"error,omitempty"`
}

// Call is one expert call: the request as the executor made it (media
// arguments as the plan named them), the progress it reported, how long
// it took, and what it returned.
type Call struct {
	Kind     skills.EndpointKind `json:"kind"`
	Task     string              `json:"task"`
	Model    string              `json:"model"`
	Args     map[string]string   `json:"args,omitempty"`
	Progress []Progress          `json:"progress,omitempty"`
	Elapsed  time.Duration       `json:"elapsed_ns"`
	Result   *Result             `json:"result,omitempty"`
	Err      *Failure            `json:"error,omitempty"`
}

// Progress is a progress report with the time it came, from the start of
// the call.
type Progress struct {
	After   time.Duration `json:"after_ns"`
	Message string        `json:"message"`
	Wait    time.Duration `json:"wait_ns,omitempty"`
}

// Result is a recorded endpoints.Result; its files are kept whole in the
// recording (base64 in the JSON), so a replay needs nothing beside it.
type Result struct {
	Text  string          `json:"text,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	Files []File          `json:"files,omitempty"`
	// Provider is who ran the model within the endpoint kind.
	Provider string `json:"provider,omitempty"`
}

// File is a produced file.
type File struct {
	MIME string `json:"mime"`
	Data []byte `json:"data"`
}

// MaxFile bounds a produced file kept in a recording: a demo's images and
// sounds are far smaller, and a recording is read whole.
const MaxFile = 64 << 20

// Failure is an error kept in a recording: its text and the classes
// (endpoints' sentinels) it wrapped, so a replayed error is judged the
// same way — retried on another model or not, excluded for the same
// reason.
type Failure struct {
	Message string   `json:"message"`
	Classes []string `json:"classes,omitempty"`
	// DownHost and DownReason keep an endpoints.HostDownError: the
	// replay marks the host down as the recorded turn did.
	DownHost   string `json:"down_host,omitempty"`
	DownReason string `json:"down_reason,omitempty"`
}

// classes are the error classes a Failure keeps, by name.
var classes = []struct {
	name string
	err  error
}{
	{"unavailable", endpoints.ErrUnavailable},
	{"unauthorized", endpoints.ErrUnauthorized},
	{"rate_limited", endpoints.ErrRateLimited},
	{"unreachable", endpoints.ErrUnreachable},
	{"bad_input", endpoints.ErrBadInput},
	{"unsupported", endpoints.ErrUnsupported},
	{"denied", scope.ErrDenied},
	{"too_large", scope.ErrTooLarge},
	{"cancelled", context.Canceled},
	{"deadline", context.DeadlineExceeded},
}

// failure records err; nil for nil.
func failure(err error) *Failure {
	if err == nil {
		return nil
	}
	f := &Failure{Message: err.Error()}
	var down *endpoints.HostDownError
	if errors.As(err, &down) {
		f.DownHost, f.DownReason = down.Host, down.Reason
	}
	for _, c := range classes {
		if errors.Is(err, c.err) {
			f.Classes = append(f.Classes, c.name)
		}
	}
	return f
}

// Error rebuilds the recorded error: the same text, wrapping the same
// classes.
func (f *Failure) Error() error {
	if f == nil {
		return nil
	}
	var errs []error
	for _, name := range f.Classes {
		for _, c := range classes {
			if c.name == name {
				errs = append(errs, c.err)
			}
		}
	}
	err := endpoints.Explain(f.Message, errs...)
	if f.DownHost != "" {
		return &endpoints.HostDownError{Host: f.DownHost, Reason: f.DownReason, Err: err}
	}
	return err
}

// expertLog collects the endpoints' side while recording.
type expertLog struct {
	mu          sync.Mutex
	kinds       []skills.EndpointKind
	checks      map[Check]int // key without Err → index in ex.Checks
	discoveries map[[2]string]int
	providers   map[[4]string]int
	ex          Experts
}

func newExpertLog() *expertLog {
	return &expertLog{checks: map[Check]int{}, discoveries: map[[2]string]int{}, providers: map[[4]string]int{}}
}

// snapshot copies what was recorded so far.
func (l *expertLog) snapshot() Experts {
	l.mu.Lock()
	defer l.mu.Unlock()
	ex := Experts{Kinds: append([]skills.EndpointKind(nil), l.kinds...)}
	ex.Checks = append(ex.Checks, l.ex.Checks...)
	ex.Discoveries = append(ex.Discoveries, l.ex.Discoveries...)
	ex.Providers = append(ex.Providers, l.ex.Providers...)
	ex.Calls = append(ex.Calls, l.ex.Calls...)
	return ex
}

func (l *expertLog) check(c Check) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := Check{Kind: c.Kind, Task: c.Task, Model: c.Model}
	if i, ok := l.checks[key]; ok {
		l.ex.Checks[i] = c
		return
	}
	l.checks[key] = len(l.ex.Checks)
	l.ex.Checks = append(l.ex.Checks, c)
}

func (l *expertLog) discovery(d Discovery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := [2]string{string(d.Kind), d.Task}
	if i, ok := l.discoveries[key]; ok {
		l.ex.Discoveries[i] = d
		return
	}
	l.discoveries[key] = len(l.ex.Discoveries)
	l.ex.Discoveries = append(l.ex.Discoveries, d)
}

func (l *expertLog) provider(p Provider) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := [4]string{string(p.Kind), p.Task, p.Model, fmt.Sprint(p.Resolved)}
	if i, ok := l.providers[key]; ok {
		l.ex.Providers[i] = p
		return
	}
	l.providers[key] = len(l.ex.Providers)
	l.ex.Providers = append(l.ex.Providers, p)
}

func (l *expertLog) call(c Call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ex.Calls = append(l.ex.Calls, c)
}

// recordRouter returns a router over the same endpoints, in the same mode,
// whose every check, discovery and call is copied into l.
func recordRouter(r *endpoints.Router, l *expertLog) *endpoints.Router {
	var eps []endpoints.Endpoint
	for _, k := range r.Kinds() {
		e, _ := r.Endpoint(k)
		eps = append(eps, &recordEndpoint{inner: e, log: l})
	}
	l.mu.Lock()
	l.kinds = r.Kinds()
	l.mu.Unlock()
	return endpoints.NewRouter(r.Mode(), eps...)
}

// recordEndpoint passes everything to inner and copies it into the log.
// It offers every optional interface of an endpoint (Discoverer,
// ProviderNamer), answering as an endpoint without it does ("no offers",
// "cannot tell") when inner lacks one: one type, whatever inner is.
type recordEndpoint struct {
	inner endpoints.Endpoint
	log   *expertLog
}

func (e *recordEndpoint) Kind() skills.EndpointKind { return e.inner.Kind() }

func (e *recordEndpoint) Check(ctx context.Context, task, model string) error {
	err := e.inner.Check(ctx, task, model)
	if ctx.Err() == nil {
		e.log.check(Check{Kind: e.Kind(), Task: task, Model: model, Err: failure(err)})
	}
	return err
}

func (e *recordEndpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	start := time.Now()
	var (
		mu       sync.Mutex
		progress []Progress
	)
	inner := req
	if req.Progress != nil {
		report := req.Progress
		inner.Progress = func(p endpoints.Progress) {
			mu.Lock()
			progress = append(progress, Progress{After: time.Since(start), Message: p.Message, Wait: p.Wait})
			mu.Unlock()
			report(p)
		}
	}
	res, err := e.inner.Infer(ctx, inner)
	if ctx.Err() != nil {
		return res, err // a cancelled call is not part of the story
	}
	mu.Lock()
	c := Call{Kind: e.Kind(), Task: req.Task, Model: req.Model, Args: maps.Clone(req.Args), Progress: progress, Elapsed: time.Since(start)}
	mu.Unlock()
	if err != nil {
		c.Err = failure(err)
	} else if rr, rerr := recordResult(res); rerr != nil {
		c.Err = failure(fmt.Errorf("%w: the result could not be recorded: %w", endpoints.ErrUnavailable, rerr))
	} else {
		c.Result = rr
	}
	e.log.call(c)
	return res, err
}

// Discover passes discovery to an endpoint that offers models.
func (e *recordEndpoint) Discover(ctx context.Context, task string) ([]endpoints.Offer, error) {
	d, ok := e.inner.(endpoints.Discoverer)
	if !ok {
		return nil, nil
	}
	offers, err := d.Discover(ctx, task)
	if ctx.Err() == nil {
		e.log.discovery(Discovery{Kind: e.Kind(), Task: task, Offers: offers, Err: failure(err)})
	}
	return offers, err
}

// Provider passes provider naming to an endpoint that reaches several.
func (e *recordEndpoint) Provider(task, model string) string {
	pn, ok := e.inner.(endpoints.ProviderNamer)
	if !ok {
		return ""
	}
	p := pn.Provider(task, model)
	e.log.provider(Provider{Kind: e.Kind(), Task: task, Model: model, Provider: p})
	return p
}

// Host passes the host a call reaches (endpoints.Hoster), so a recorded
// turn skips a host that is down as any turn does.
func (e *recordEndpoint) Host(task, model string) string {
	if h, ok := e.inner.(endpoints.Hoster); ok {
		return h.Host(task, model)
	}
	return ""
}

// ResolveProvider passes provider resolution to an endpoint that can ask;
// one that cannot answers as Provider does.
func (e *recordEndpoint) ResolveProvider(ctx context.Context, task, model string) string {
	pr, ok := e.inner.(endpoints.ProviderResolver)
	if !ok {
		return e.Provider(task, model)
	}
	p := pr.ResolveProvider(ctx, task, model)
	if ctx.Err() == nil {
		e.log.provider(Provider{Kind: e.Kind(), Task: task, Model: model, Provider: p, Resolved: true})
	}
	return p
}

// recordResult copies a result, reading its files (in memory or spooled)
// without consuming them: the executor still moves them into place.
func recordResult(res endpoints.Result) (*Result, error) {
	out := &Result{Text: res.Text, Data: res.Data, Provider: res.Provider}
	for _, b := range res.Blobs {
		data, err := b.Bytes(MaxFile)
		if err != nil {
			return nil, err
		}
		out.Files = append(out.Files, File{MIME: b.MIME, Data: data})
	}
	return out, nil
}

// Package ollama is the ollama endpoint kind: expert tasks served by models
// pulled into Ollama — vision models for image tasks, chat models for text
// tasks — each through a prompt written for the task (prompts.go), with a
// JSON schema where the answer is structured, read back into the Hugging
// Face result shapes. Discovery (discover.go) offers every pulled model
// that fits a task. It talks to Ollama only through the official client,
// github.com/ollama/ollama/api, which it builds itself from the host.
package ollama

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/chattask"
	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// DefaultHost is where Ollama listens unless told otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// Options configures the ollama endpoint.
type Options struct {
	// Host is the server address as configured ("http://127.0.0.1:11434");
	// empty means DefaultHost. The official client does not expose its base
	// URL, so errors name the host from here; empty reads "the Ollama
	// server".
	Host string
	// HTTPClient makes the requests; nil means a client without a timeout
	// (the context bounds every call).
	HTTPClient *http.Client
	// CacheTTL is how long the list of pulled models and their capabilities
	// is reused before it is fetched again; 0 means 30 s.
	CacheTTL time.Duration
	// FailureTTL is how long "Ollama is not reachable" is remembered, so a
	// plan's parallel checks do not each wait on a dead host; 0 means 5 s.
	FailureTTL time.Duration
	// Options are model options sent with every call (num_ctx,
	// temperature); a task's own temperature wins over a missing one only.
	Options map[string]any
	// MaxImageBytes bounds an image file sent to a vision model; 0 means 20 MB.
	MaxImageBytes int64
	// Now returns the time, for tests of the cache; nil means time.Now.
	Now func() time.Time
}

// Endpoint serves expert tasks with models pulled into Ollama: vision
// models (llava, qwen2.5vl, gemma3…) for image tasks and any chat model for
// text tasks, each through a task-specific prompt. It talks to Ollama only
// through the official client and is safe for concurrent use.
type Endpoint struct {
	client  *api.Client
	hostErr error // Host is not a URL: every call says so
	opts    Options

	refresh sync.Mutex // one inventory fetch at a time
	mu      sync.Mutex // guards the fields below
	inv     map[string]pulledModel
	invErr  error
	invAt   time.Time
}

// pulledModel is what discovery learned about one pulled model.
type pulledModel struct {
	name         string
	digest       string
	size         int64
	details      api.ModelDetails
	capabilities []string
	params       int64
	license      string
}

func (m pulledModel) can(c string) bool {
	for _, x := range m.capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// New returns the ollama endpoint for the server at opts.Host. It never
// fails: a host that is not a URL makes every Check and Infer say so.
func New(opts Options) *Endpoint {
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = 30 * time.Second
	}
	if opts.FailureTTL <= 0 {
		opts.FailureTTL = 5 * time.Second
	}
	if opts.MaxImageBytes <= 0 {
		opts.MaxImageBytes = 20 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	host := opts.Host
	if host == "" {
		host = DefaultHost
	}
	e := &Endpoint{opts: opts}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		e.hostErr = fmt.Errorf("%w: the Ollama host %q is not a URL — set controller.host or OLLAMA_HOST to one such as %s", endpoints.ErrUnreachable, host, DefaultHost)
		u = &url.URL{}
	}
	e.client = api.NewClient(u, hc)
	return e
}

// Kind returns Ollama.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointOllama }

// Host is the Ollama server's host (endpoints.Hoster).
func (e *Endpoint) Host(task, model string) string {
	if e.opts.Host == "" {
		return ""
	}
	return endpoints.HostKey(e.opts.Host)
}

// Invalidate drops the cached model list, so the next call sees a model
// pulled or removed a moment ago.
func (e *Endpoint) Invalidate() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.invAt = time.Time{}
}

func (e *Endpoint) host() string {
	if e.opts.Host != "" {
		return e.opts.Host
	}
	return "the Ollama server"
}

// Check reports whether model is pulled and can do task. It reuses the
// cached model list, so it is cheap.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	spec, ok := chattask.Lookup(task)
	if !ok {
		return fmt.Errorf("%w: Ollama models are not used for %s", endpoints.ErrUnsupported, task)
	}
	m, err := e.lookup(ctx, model)
	if err != nil {
		return err
	}
	return e.fits(m, task, spec.Vision)
}

// fits says whether a pulled model has the capability a task needs.
func (e *Endpoint) fits(m pulledModel, task string, vision bool) error {
	switch {
	case !m.can("completion"):
		return fmt.Errorf("%w: Ollama model %s only makes embeddings; %s needs a model that generates text", endpoints.ErrUnavailable, m.name, task)
	case vision && !m.can("vision"):
		return fmt.Errorf("%w: Ollama model %s cannot see images; %s needs a vision model — e.g. `ollama pull qwen2.5vl` or `ollama pull llava`", endpoints.ErrUnavailable, m.name, task)
	}
	return nil
}

// lookup finds model among the pulled ones, fetching the list again once
// when it is not there (it may have been pulled since the list was cached).
func (e *Endpoint) lookup(ctx context.Context, model string) (pulledModel, error) {
	for attempt := 0; attempt < 2; attempt++ {
		inv, fresh, err := e.inventory(ctx)
		if err != nil {
			return pulledModel{}, err
		}
		if m, ok := inv[modelKey(model)]; ok {
			return m, nil
		}
		// Fetch again only if the list is more than a moment old, so
		// checking many catalog models that are not pulled costs one
		// /api/tags call, not one each.
		if fresh || e.listAge() < recheckAfter {
			break
		}
		e.Invalidate()
	}
	return pulledModel{}, e.notPulled(model)
}

// recheckAfter is how old the model list must be before a model missing
// from it is looked for again.
const recheckAfter = 2 * time.Second

// listAge is how long ago the model list was fetched.
func (e *Endpoint) listAge() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.invAt.IsZero() {
		return time.Duration(1<<63 - 1)
	}
	return e.opts.Now().Sub(e.invAt)
}

func (e *Endpoint) notPulled(model string) error {
	return fmt.Errorf("%w: model %s is not pulled into Ollama at %s — run `ollama pull %s` or /pull %s", endpoints.ErrUnavailable, model, e.host(), model, model)
}

// modelKey compares model names as Ollama does: case-insensitively, the
// default registry and namespace dropped, ":latest" when no tag is given.
func modelKey(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "registry.ollama.ai/")
	n = strings.TrimPrefix(n, "library/")
	if i := strings.LastIndex(n, "/"); !strings.Contains(n[i+1:], ":") {
		n += ":latest"
	}
	return n
}

// Infer runs task on the model with a non-streaming chat call and a prompt
// written for the task.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	spec, ok := chattask.Lookup(req.Task)
	if !ok {
		return endpoints.Result{}, fmt.Errorf("%w: Ollama models are not used for %s", endpoints.ErrUnsupported, req.Task)
	}
	call, err := spec.Build(req)
	if err != nil {
		return endpoints.Result{}, err
	}
	msg := api.Message{Role: "user", Content: call.User}
	if !call.Image.IsZero() {
		name := req.Args["image"]
		if name == "" {
			name = call.Image.Asked()
		}
		img, err := e.readImage(call.Image, name)
		if err != nil {
			return endpoints.Result{}, err
		}
		msg.Images = []api.ImageData{img}
	}
	m, err := e.lookup(ctx, req.Model)
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := e.fits(m, req.Task, spec.Vision); err != nil {
		return endpoints.Result{}, err
	}
	e.reportLoading(ctx, req)

	opts := maps.Clone(e.opts.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	if _, set := opts["temperature"]; !set && call.Temperature >= 0 {
		opts["temperature"] = call.Temperature
	}
	var msgs []api.Message
	if call.System != "" {
		msgs = append(msgs, api.Message{Role: "system", Content: call.System})
	}
	stream := false
	chat := &api.ChatRequest{Model: req.Model, Messages: append(msgs, msg), Stream: &stream, Format: call.Format, Options: opts}

	var resp api.ChatResponse
	var done bool
	err = e.client.Chat(ctx, chat, func(r api.ChatResponse) error {
		resp, done = r, r.Done
		return nil
	})
	if ctx.Err() != nil {
		// The client may report a cut-off answer as success; the cancel
		// is what happened.
		return endpoints.Result{}, fmt.Errorf("ollama %s: %w", req.Model, ctx.Err())
	}
	if err != nil {
		return endpoints.Result{}, e.classify(err, req.Model, req.Task)
	}
	if !done {
		return endpoints.Result{}, fmt.Errorf("%w: Ollama at %s ended the answer from %s before it was complete — is the server still running?", endpoints.ErrUnreachable, e.host(), req.Model)
	}
	res, err := call.Parse(resp.Message.Content)
	if err != nil {
		if resp.DoneReason == "length" {
			err = fmt.Errorf("%w (the answer hit the token limit)", err)
		}
		return endpoints.Result{}, fmt.Errorf("ollama %s: %s: %w", req.Model, req.Task, err)
	}
	return res, nil
}

// reportLoading tells the user when the model is not in memory yet, since
// the first call then waits for it to load.
func (e *Endpoint) reportLoading(ctx context.Context, req endpoints.Request) {
	if req.Progress == nil {
		return
	}
	ps, err := e.client.ListRunning(ctx)
	if err != nil {
		return
	}
	for _, m := range ps.Models {
		if modelKey(m.Name) == modelKey(req.Model) {
			return
		}
	}
	req.Progress(endpoints.Progress{Message: fmt.Sprintf("loading %s into memory (the first call takes a while)", req.Model)})
}

// visionFormats are the formats Ollama's vision runners decode; other
// images are converted to PNG first.
var visionFormats = map[string]bool{"png": true, "jpeg": true, "webp": true}

// readImage reads the checked image file f for a vision model; name is
// the path as the plan gave it, for messages.
func (e *Endpoint) readImage(f scope.File, name string) ([]byte, error) {
	fi, err := os.Stat(f.Path())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: image file %s does not exist — check the path", endpoints.ErrBadInput, name)
	case err != nil:
		return nil, fmt.Errorf("%w: cannot read image %s: %w", endpoints.ErrBadInput, name, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a directory, not an image file", endpoints.ErrBadInput, name)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file (a pipe or device) — give an image file", endpoints.ErrBadInput, name)
	case fi.Size() > e.opts.MaxImageBytes:
		return nil, fmt.Errorf("%w: image %s is %s; vision models get at most %s — resize it first (image-resize)", endpoints.ErrBadInput, name, skills.HumanBytes(fi.Size()), skills.HumanBytes(e.opts.MaxImageBytes))
	}
	data, err := f.ReadAll(e.opts.MaxImageBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read image %s: %w", endpoints.ErrBadInput, name, err)
	}
	_, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a readable %s image", endpoints.ErrBadInput, name, imaging.DecodableFormats)
	}
	if visionFormats[format] {
		return data, nil
	}
	img, _, err := imaging.Decode(data)
	if err != nil {
		// The image library's bad input is this endpoint's bad input.
		err = fmt.Errorf("image %s: %w", name, err)
		return nil, endpoints.Explain(err.Error(), err, endpoints.ErrBadInput)
	}
	blob, err := imaging.Encode(img, "png")
	if err != nil {
		return nil, fmt.Errorf("%w: convert %s to PNG for Ollama: %w", endpoints.ErrBadInput, name, err)
	}
	return blob.Data, nil
}

// classify turns a client error into one of the endpoints sentinels, with
// a message that names the fix.
func (e *Endpoint) classify(err error, model, task string) error {
	var se api.StatusError
	if errors.As(err, &se) {
		msg := se.ErrorMessage
		if msg == "" {
			msg = se.Status
		}
		herr := &endpoints.HTTPError{Kind: skills.EndpointOllama, Model: model, Status: se.StatusCode, Message: msg}
		switch {
		case se.StatusCode == http.StatusNotFound:
			e.Invalidate()
			return fmt.Errorf("%w (Ollama said: %s)", e.notPulled(model), msg)
		case se.StatusCode == http.StatusBadRequest && strings.Contains(msg, "does not support"):
			herr.Err = endpoints.ErrUnavailable
			return fmt.Errorf("Ollama model %s cannot do %s: %w", model, task, herr) //nolint:staticcheck // ST1005: Ollama is a name
		case se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden:
			herr.Err = endpoints.ErrUnauthorized
		case se.StatusCode == http.StatusBadRequest:
			herr.Err = endpoints.ErrBadInput
		default: // out of memory, runner crashed, server busy: another model may work
			herr.Err = endpoints.ErrUnavailable
		}
		return herr
	}
	var uerr *url.Error
	if errors.As(err, &uerr) || errors.Is(err, io.ErrUnexpectedEOF) {
		e.Invalidate()
		return endpoints.MarkHostDown(e.opts.Host, err, fmt.Errorf("%w: Ollama is not reachable at %s — start it with `ollama serve` (%w)", endpoints.ErrUnreachable, e.host(), err))
	}
	if strings.HasPrefix(err.Error(), "unmarshal:") {
		return fmt.Errorf("%w: %s did not answer like an Ollama server (%w) — check controller.host / OLLAMA_HOST", endpoints.ErrUnreachable, e.host(), err)
	}
	// An {"error": …} line inside a 200 stream: the runner failed mid-answer.
	return fmt.Errorf("%w: Ollama model %s failed: %w", endpoints.ErrUnavailable, model, err)
}

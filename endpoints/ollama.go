package endpoints

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

	"github.com/chorusai/chorus/imaging"

	"github.com/ollama/ollama/api"
)

// OllamaOptions configures the ollama endpoint.
type OllamaOptions struct {
	// Host is the server address as configured ("http://127.0.0.1:11434").
	// The official client does not expose its base URL, so errors take the
	// host from here; empty reads "the Ollama server".
	Host string
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

// OllamaEndpoint serves expert tasks with models pulled into Ollama: vision
// models (llava, qwen2.5vl, gemma3…) for image tasks and any chat model for
// text tasks, each through a task-specific prompt. It talks to Ollama only
// through the official client and is safe for concurrent use.
type OllamaEndpoint struct {
	client *api.Client
	opts   OllamaOptions

	refresh sync.Mutex // one inventory fetch at a time
	mu      sync.Mutex // guards the fields below
	inv     map[string]ollamaModel
	invErr  error
	invAt   time.Time
}

// ollamaModel is what discovery learned about one pulled model.
type ollamaModel struct {
	name         string
	digest       string
	size         int64
	details      api.ModelDetails
	capabilities []string
	params       int64
	license      string
}

func (m ollamaModel) can(c string) bool {
	for _, x := range m.capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// NewOllama returns the ollama endpoint over client, which the caller builds
// with api.NewClient(url, httpClient).
func NewOllama(client *api.Client, opts OllamaOptions) *OllamaEndpoint {
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
	return &OllamaEndpoint{client: client, opts: opts}
}

// Kind returns Ollama.
func (e *OllamaEndpoint) Kind() Kind { return Ollama }

// Invalidate drops the cached model list, so the next call sees a model
// pulled or removed a moment ago.
func (e *OllamaEndpoint) Invalidate() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.invAt = time.Time{}
}

func (e *OllamaEndpoint) host() string {
	if e.opts.Host != "" {
		return e.opts.Host
	}
	return "the Ollama server"
}

// Check reports whether model is pulled and can do task. It reuses the
// cached model list, so it is cheap.
func (e *OllamaEndpoint) Check(ctx context.Context, task, model string) error {
	spec, ok := ollamaTasks[task]
	if !ok {
		return fmt.Errorf("%w: Ollama models are not used for %s", ErrUnsupported, task)
	}
	m, err := e.lookup(ctx, model)
	if err != nil {
		return err
	}
	return e.fits(m, task, spec.vision)
}

// fits says whether a pulled model has the capability a task needs.
func (e *OllamaEndpoint) fits(m ollamaModel, task string, vision bool) error {
	switch {
	case !m.can("completion"):
		return fmt.Errorf("%w: Ollama model %s only makes embeddings; %s needs a model that generates text", ErrUnavailable, m.name, task)
	case vision && !m.can("vision"):
		return fmt.Errorf("%w: Ollama model %s cannot see images; %s needs a vision model — e.g. `ollama pull qwen2.5vl` or `ollama pull llava`", ErrUnavailable, m.name, task)
	}
	return nil
}

// lookup finds model among the pulled ones, fetching the list again once
// when it is not there (it may have been pulled since the list was cached).
func (e *OllamaEndpoint) lookup(ctx context.Context, model string) (ollamaModel, error) {
	for attempt := 0; attempt < 2; attempt++ {
		inv, fresh, err := e.inventory(ctx)
		if err != nil {
			return ollamaModel{}, err
		}
		if m, ok := inv[ollamaKey(model)]; ok {
			return m, nil
		}
		// Fetch again only if the list is more than a moment old, so
		// checking many catalog models that are not pulled costs one
		// /api/tags call, not one each.
		if fresh || e.listAge() < ollamaRecheck {
			break
		}
		e.Invalidate()
	}
	return ollamaModel{}, e.notPulled(model)
}

// ollamaRecheck is how old the model list must be before a model missing
// from it is looked for again.
const ollamaRecheck = 2 * time.Second

// listAge is how long ago the model list was fetched.
func (e *OllamaEndpoint) listAge() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.invAt.IsZero() {
		return time.Duration(1<<63 - 1)
	}
	return e.opts.Now().Sub(e.invAt)
}

func (e *OllamaEndpoint) notPulled(model string) error {
	return fmt.Errorf("%w: model %s is not pulled into Ollama at %s — run `ollama pull %s` or /pull %s", ErrUnavailable, model, e.host(), model, model)
}

// ollamaKey compares model names as Ollama does: case-insensitively, the
// default registry and namespace dropped, ":latest" when no tag is given.
func ollamaKey(name string) string {
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
func (e *OllamaEndpoint) Infer(ctx context.Context, req Request) (Result, error) {
	spec, ok := ollamaTasks[req.Task]
	if !ok {
		return Result{}, fmt.Errorf("%w: Ollama models are not used for %s", ErrUnsupported, req.Task)
	}
	call, err := spec.build(req)
	if err != nil {
		return Result{}, err
	}
	msg := api.Message{Role: "user", Content: call.user}
	if call.image != "" {
		img, err := e.readImage(call.image)
		if err != nil {
			return Result{}, err
		}
		msg.Images = []api.ImageData{img}
	}
	m, err := e.lookup(ctx, req.Model)
	if err != nil {
		return Result{}, err
	}
	if err := e.fits(m, req.Task, spec.vision); err != nil {
		return Result{}, err
	}
	e.reportLoading(ctx, req)

	opts := maps.Clone(e.opts.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	if _, set := opts["temperature"]; !set && call.temperature >= 0 {
		opts["temperature"] = call.temperature
	}
	var msgs []api.Message
	if call.system != "" {
		msgs = append(msgs, api.Message{Role: "system", Content: call.system})
	}
	stream := false
	chat := &api.ChatRequest{Model: req.Model, Messages: append(msgs, msg), Stream: &stream, Format: call.format, Options: opts}

	var resp api.ChatResponse
	var done bool
	err = e.client.Chat(ctx, chat, func(r api.ChatResponse) error {
		resp, done = r, r.Done
		return nil
	})
	if ctx.Err() != nil {
		// The client may report a cut-off answer as success; the cancel
		// is what happened.
		return Result{}, fmt.Errorf("ollama %s: %w", req.Model, ctx.Err())
	}
	if err != nil {
		return Result{}, e.classify(err, req.Model, req.Task)
	}
	if !done {
		return Result{}, fmt.Errorf("%w: Ollama at %s ended the answer from %s before it was complete — is the server still running?", ErrUnreachable, e.host(), req.Model)
	}
	res, err := call.parse(resp.Message.Content)
	if err != nil {
		if resp.DoneReason == "length" {
			err = fmt.Errorf("%w (the answer hit the token limit)", err)
		}
		return Result{}, fmt.Errorf("ollama %s: %s: %w", req.Model, req.Task, err)
	}
	return res, nil
}

// reportLoading tells the user when the model is not in memory yet, since
// the first call then waits for it to load.
func (e *OllamaEndpoint) reportLoading(ctx context.Context, req Request) {
	if req.Progress == nil {
		return
	}
	ps, err := e.client.ListRunning(ctx)
	if err != nil {
		return
	}
	for _, m := range ps.Models {
		if ollamaKey(m.Name) == ollamaKey(req.Model) {
			return
		}
	}
	req.Progress(Progress{Message: fmt.Sprintf("loading %s into memory (the first call takes a while)", req.Model)})
}

// ollamaImageFormats are the formats Ollama's vision runners decode; other
// images are converted to PNG first.
var ollamaImageFormats = map[string]bool{"png": true, "jpeg": true, "webp": true}

// readImage reads an image file for a vision model.
func (e *OllamaEndpoint) readImage(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: image file %s does not exist — check the path", ErrBadInput, path)
	case err != nil:
		return nil, fmt.Errorf("%w: cannot read image %s: %v", ErrBadInput, path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a directory, not an image file", ErrBadInput, path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file (a pipe or device) — give an image file", ErrBadInput, path)
	case fi.Size() > e.opts.MaxImageBytes:
		return nil, fmt.Errorf("%w: image %s is %s; vision models get at most %s — resize it first (image-resize)", ErrBadInput, path, humanFileSize(fi.Size()), humanFileSize(e.opts.MaxImageBytes))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read image %s: %v", ErrBadInput, path, err)
	}
	_, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a readable %s image", ErrBadInput, path, imaging.DecodableFormats)
	}
	if ollamaImageFormats[format] {
		return data, nil
	}
	img, _, err := imaging.Load(path)
	if err != nil {
		// The image library's bad input is this endpoint's bad input.
		return nil, Explain(err.Error(), err, ErrBadInput)
	}
	blob, err := imaging.Encode(img, "png")
	if err != nil {
		return nil, fmt.Errorf("%w: convert %s to PNG for Ollama: %v", ErrBadInput, path, err)
	}
	return blob.Data, nil
}

// classify turns a client error into one of the package's sentinels, with
// a message that names the fix.
func (e *OllamaEndpoint) classify(err error, model, task string) error {
	var se api.StatusError
	if errors.As(err, &se) {
		msg := se.ErrorMessage
		if msg == "" {
			msg = se.Status
		}
		herr := &HTTPError{Kind: Ollama, Model: model, Status: se.StatusCode, Message: msg}
		switch {
		case se.StatusCode == http.StatusNotFound:
			e.Invalidate()
			return fmt.Errorf("%w (Ollama said: %s)", e.notPulled(model), msg)
		case se.StatusCode == http.StatusBadRequest && strings.Contains(msg, "does not support"):
			herr.Err = ErrUnavailable
			return fmt.Errorf("Ollama model %s cannot do %s: %w", model, task, herr)
		case se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden:
			herr.Err = ErrUnauthorized
		case se.StatusCode == http.StatusBadRequest:
			herr.Err = ErrBadInput
		default: // out of memory, runner crashed, server busy: another model may work
			herr.Err = ErrUnavailable
		}
		return herr
	}
	var uerr *url.Error
	if errors.As(err, &uerr) || errors.Is(err, io.ErrUnexpectedEOF) {
		e.Invalidate()
		return fmt.Errorf("%w: Ollama is not reachable at %s — start it with `ollama serve` (%v)", ErrUnreachable, e.host(), err)
	}
	if strings.HasPrefix(err.Error(), "unmarshal:") {
		return fmt.Errorf("%w: %s did not answer like an Ollama server (%v) — check controller.host / OLLAMA_HOST", ErrUnreachable, e.host(), err)
	}
	// An {"error": …} line inside a 200 stream: the runner failed mid-answer.
	return fmt.Errorf("%w: Ollama model %s failed: %v", ErrUnavailable, model, err)
}

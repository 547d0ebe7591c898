package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/httpwire"
)

// A demo must look the same every time and run without a model, so the
// controller's traffic can be recorded and replayed. Both are backends
// (backend.go): a wiretap wraps the real one and copies every answer with
// the time each chunk arrived; replaying answers from the copy, waiting as
// long as the server took (scaled by the caller's pace). The stages above
// cannot tell a replay from a server — the same plan, the same picks, the
// same answer, streamed at the same rhythm.

// Exchange is one recorded chat call: what identifies it, and the reply
// as it streamed.
type Exchange struct {
	Model string `json:"model"`
	// Key is the first line of the call's last message (a stage marker
	// such as "STAGE: PLAN"): a replay answers a call with the next unused
	// exchange of the same key, so calls made concurrently (selection
	// while tasks run) cannot take each other's replies.
	Key string `json:"key"`
	// Digest identifies the last message and the schema exactly; among
	// exchanges of the same key, one with the same digest is preferred.
	Digest string `json:"digest"`
	// Chunks are the reply's pieces in order, each with its arrival time.
	Chunks []Chunk `json:"chunks"`
	// Err is the call's failure as the server gave it, if it failed.
	Err *RecordedError `json:"error,omitempty"`
}

// Chunk is one piece of a recorded reply.
type Chunk struct {
	// After is the time from the start of the call to this chunk.
	After              time.Duration `json:"after_ns"`
	Content            string        `json:"content,omitempty"`
	Done               bool          `json:"done,omitempty"`
	DoneReason         string        `json:"done_reason,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration time.Duration `json:"prompt_eval_ns,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       time.Duration `json:"eval_ns,omitempty"`
}

// RecordedError is a backend failure kept in a recording: a server's
// refusal (Code set) or a transport failure (its text).
type RecordedError struct {
	Code    int    `json:"code,omitempty"`
	Status  string `json:"status,omitempty"`
	Message string `json:"message"`
	// Kind is the backend's classification ("model-missing",
	// "wrong-server", "unreachable"), so a replay fails as the server did;
	// empty when it gave none (and in recordings made before it was kept).
	Kind string `json:"kind,omitempty"`
}

// classNames are the classifications a recording keeps, by name.
var classNames = map[string]error{"unreachable": ErrUnreachable, "model-missing": ErrModelMissing, "wrong-server": ErrWrongServer, "cannot-pull": ErrCannotPull}

// className is the name of err's classification, "" when it has none.
func className(err error) string {
	for name, class := range classNames {
		if errors.Is(err, class) {
			return name
		}
	}
	return ""
}

// ServerState is what the server said about itself and its models while
// recording, so a replay's checks and /model list answer the same.
type ServerState struct {
	Version      string              `json:"version,omitempty"`
	Models       []ModelInfo         `json:"models,omitempty"`
	Capabilities map[string][]string `json:"capabilities,omitempty"`
}

// Traffic is a recorded controller session: the server's state and every
// chat call in the order they started.
type Traffic struct {
	Server ServerState `json:"server"`
	Calls  []Exchange  `json:"calls"`
}

// Wiretap collects the traffic of the controllers tapped with it
// (Controller.Tapped): the controller's half of a recording, which
// recording.Recorder — the one recorder of a chat — saves with the
// experts' half. It is safe for concurrent use.
type Wiretap struct {
	mu     sync.Mutex
	server ServerState
	calls  []*Exchange
}

// NewWiretap returns a wiretap that heard nothing yet.
func NewWiretap() *Wiretap {
	return &Wiretap{server: ServerState{Capabilities: map[string][]string{}}}
}

// Traffic returns a copy of what was recorded so far; calls still
// streaming are included as far as they got.
func (r *Wiretap) Traffic() Traffic {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := Traffic{Server: ServerState{Version: r.server.Version, Models: slices.Clone(r.server.Models), Capabilities: map[string][]string{}}}
	for k, v := range r.server.Capabilities {
		t.Server.Capabilities[k] = slices.Clone(v)
	}
	for _, c := range r.calls {
		x := *c
		x.Chunks = slices.Clone(c.Chunks)
		t.Calls = append(t.Calls, x)
	}
	return t
}

// Tapped returns a controller for the same model and server whose calls
// are copied into r. A nil r returns one that copies nothing: the way back
// from recording.
func (c *Controller) Tapped(r *Wiretap) *Controller {
	b := c.backend
	if rb, ok := b.(*tappedBackend); ok {
		b = rb.inner
	}
	if r != nil {
		b = &tappedBackend{inner: b, rec: r}
	}
	out := c.WithModel(c.model)
	out.backend = b
	return out
}

// exchangeKey identifies a call in a recording: the first line of its
// last message, and a digest of that message and the reply schema.
func exchangeKey(req ChatRequest) (key, digest string) {
	last := ""
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1].Content
	}
	key, _, _ = strings.Cut(strings.TrimSpace(last), "\n")
	if r := []rune(key); len(r) > 64 {
		key = string(r[:64])
	}
	h := sha256.New()
	h.Write([]byte(last))
	h.Write([]byte{0})
	h.Write(req.Format)
	return key, hex.EncodeToString(h.Sum(nil)[:12])
}

// tappedBackend passes every call to inner and copies what comes back.
type tappedBackend struct {
	inner Backend
	rec   *Wiretap
}

// Hints are the recorded server's.
func (b *tappedBackend) Hints() Hints { return hintsOf(b.inner) }

func (b *tappedBackend) Models(ctx context.Context) ([]ModelInfo, error) {
	ms, err := b.inner.Models(ctx)
	if err == nil {
		b.rec.mu.Lock()
		b.rec.server.Models = slices.Clone(ms)
		b.rec.mu.Unlock()
	}
	return ms, err
}

func (b *tappedBackend) Capabilities(ctx context.Context, model string) ([]string, error) {
	caps, err := b.inner.Capabilities(ctx, model)
	if err == nil {
		b.rec.mu.Lock()
		b.rec.server.Capabilities[model] = slices.Clone(caps)
		b.rec.mu.Unlock()
	}
	return caps, err
}

func (b *tappedBackend) Version(ctx context.Context) (string, error) {
	vb, ok := b.inner.(Versioner)
	if !ok {
		return "", nil
	}
	v, err := vb.Version(ctx)
	if err == nil {
		b.rec.mu.Lock()
		b.rec.server.Version = v
		b.rec.mu.Unlock()
	}
	return v, err
}

func (b *tappedBackend) Chat(ctx context.Context, req ChatRequest, fn func(ChatChunk)) error {
	key, digest := exchangeKey(req)
	x := &Exchange{Model: req.Model, Key: key, Digest: digest}
	// The place in the order is taken when the call starts: a replay
	// hands replies out in the order their calls were made.
	b.rec.mu.Lock()
	b.rec.calls = append(b.rec.calls, x)
	b.rec.mu.Unlock()
	start := time.Now()
	err := b.inner.Chat(ctx, req, func(c ChatChunk) {
		b.rec.mu.Lock()
		x.Chunks = append(x.Chunks, Chunk{After: time.Since(start), Content: c.Content, Done: c.Done, DoneReason: c.DoneReason,
			PromptEvalCount: c.PromptEvalCount, PromptEvalDuration: c.PromptEvalDuration, EvalCount: c.EvalCount, EvalDuration: c.EvalDuration})
		b.rec.mu.Unlock()
		fn(c)
	})
	if err != nil && ctx.Err() == nil {
		re := &RecordedError{Message: err.Error(), Kind: className(err)}
		var se *StatusError
		if errors.As(err, &se) {
			re.Code, re.Status, re.Message = se.Code, se.Status, se.Message
		}
		b.rec.mu.Lock()
		x.Err = re
		b.rec.mu.Unlock()
	}
	return err
}

func (b *tappedBackend) Pull(ctx context.Context, model string, fn func(PullProgress)) error {
	p, ok := b.inner.(Puller)
	if !ok {
		return &Error{Model: model, Err: ErrCannotPull}
	}
	return p.Pull(ctx, model, fn)
}

// ErrNotRecorded is wrapped when a replay is asked for something its
// recording does not hold: more turns than were recorded, or a call the
// recorded session never made.
var ErrNotRecorded = errors.New("not in the recording")

// ReplayOptions configure a replaying controller.
type ReplayOptions struct {
	// Source names the recording in messages and as the controller's
	// host ("replay of docs/demo/lighthouse.json").
	Source string
	// Model is the controller model; empty means the model of the first
	// recorded call.
	Model string
	// Wait waits d, the recorded time between two chunks, as the replay's
	// pace decides (scaled, or not at all); nil waits d. It returns ctx's
	// error when ctx ends first.
	Wait func(ctx context.Context, d time.Duration) error
	// Options are the usual controller options (token bounds, logger).
	Options Options
}

// Replay returns a controller that answers from recorded traffic instead of
// a server: no model and no network are used.
func Replay(t Traffic, o ReplayOptions) *Controller {
	model := o.Model
	if model == "" && len(t.Calls) > 0 {
		model = t.Calls[0].Model
	}
	if o.Wait == nil {
		o.Wait = httpwire.Sleep
	}
	host := "replay"
	if o.Source != "" {
		host = "replay of " + o.Source
	}
	c := &Controller{host: host, model: model, caps: map[string][]string{}, prompts: newPromptMemory()}
	c.opts = o.Options.defaults()
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if len(t.Server.Models) == 0 {
		// Recorded without a check (a headless run): the models that
		// answered are the ones the server had.
		for _, name := range append([]string{model}, callModels(t)...) {
			if name != "" && !slices.ContainsFunc(t.Server.Models, func(m ModelInfo) bool { return m.Name == name }) {
				t.Server.Models = append(t.Server.Models, ModelInfo{Name: name, Model: name})
			}
		}
	}
	c.backend = &replayBackend{t: t, used: make([]bool, len(t.Calls)), wait: o.Wait, source: o.Source}
	return c
}

// callModels lists the models of the recorded calls.
func callModels(t Traffic) []string {
	var out []string
	for _, x := range t.Calls {
		out = append(out, x.Model)
	}
	return out
}

// replayBackend answers from a recording.
type replayBackend struct {
	t      Traffic
	wait   func(context.Context, time.Duration) error
	source string

	mu   sync.Mutex
	used []bool
}

func (b *replayBackend) Models(context.Context) ([]ModelInfo, error) {
	return slices.Clone(b.t.Server.Models), nil
}

func (b *replayBackend) Capabilities(_ context.Context, model string) ([]string, error) {
	if caps, ok := b.t.Server.Capabilities[model]; ok {
		return slices.Clone(caps), nil
	}
	// A recording made before the model's details were asked for: what
	// every chat model can do.
	return []string{"completion"}, nil
}

func (b *replayBackend) Version(context.Context) (string, error) { return b.t.Server.Version, nil }

func (b *replayBackend) Pull(context.Context, string, func(PullProgress)) error {
	return fmt.Errorf("a replay (%s) cannot pull models: %w", b.source, ErrNotRecorded)
}

// take claims the exchange that answers req: the first unused one with
// the same key and digest, else the first unused one with the same key.
func (b *replayBackend) take(req ChatRequest) (Exchange, bool) {
	key, digest := exchangeKey(req)
	b.mu.Lock()
	defer b.mu.Unlock()
	pick := -1
	for i, x := range b.t.Calls {
		if b.used[i] || x.Key != key {
			continue
		}
		if x.Digest == digest {
			pick = i
			break
		}
		if pick < 0 {
			pick = i
		}
	}
	if pick < 0 {
		return Exchange{}, false
	}
	b.used[pick] = true
	return b.t.Calls[pick], true
}

func (b *replayBackend) Chat(ctx context.Context, req ChatRequest, fn func(ChatChunk)) error {
	x, ok := b.take(req)
	if !ok {
		key, _ := exchangeKey(req)
		return &Error{Host: b.source, Model: req.Model, Err: ErrNotRecorded,
			Detail: fmt.Sprintf("the recording %s has no more replies for %q — it holds only the turns it recorded; quit and run it again to start over", b.source, key)}
	}
	var prev time.Duration
	for _, c := range x.Chunks {
		if err := b.wait(ctx, c.After-prev); err != nil {
			return err
		}
		prev = c.After
		fn(ChatChunk{Content: c.Content, Done: c.Done, DoneReason: c.DoneReason, PromptEvalCount: c.PromptEvalCount,
			PromptEvalDuration: c.PromptEvalDuration, EvalCount: c.EvalCount, EvalDuration: c.EvalDuration})
	}
	if x.Err != nil {
		kind := classNames[x.Err.Kind]
		if x.Err.Code != 0 {
			return &StatusError{Code: x.Err.Code, Status: x.Err.Status, Message: x.Err.Message, Kind: kind, Err: errors.New(x.Err.Message)}
		}
		if kind != nil {
			return &Error{Err: kind, Detail: x.Err.Message}
		}
		return errors.New(x.Err.Message)
	}
	return nil
}

// Replaying reports whether the controller answers from a recording
// rather than a server, so the UI can say so.
func (c *Controller) Replaying() bool {
	_, ok := c.backend.(*replayBackend)
	return ok
}

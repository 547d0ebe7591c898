// Package endpoints runs expert models. Every place a model can run — the
// Hugging Face Inference API, a self-hosted server, an Ollama model, a local
// program, or Go code built into Chorus — is an Endpoint behind one
// interface, and a Router orders them local first.
package endpoints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Request is one expert call.
type Request struct {
	// Task is the skill name, e.g. "image-to-text".
	Task string
	// Model is the model id as the catalog (or discovery) names it.
	Model string
	// Args holds the task's arguments by name. Text arguments carry the
	// text; image, audio and video arguments carry the local file path as
	// the plan gave it, for messages only; point and box carry "x,y" and
	// "x1,y1,x2,y2".
	Args map[string]string
	// Files holds the media arguments (image, audio, video, mask) by name
	// as files that passed the turn's trust rule (package scope). The
	// executor fills it from the turn's scope; an endpoint reads input
	// files only from here, through File — never by opening a path from
	// Args, which the controller or an earlier expert may have written.
	Files map[string]scope.File
	// Command is the program for the command kind, from the catalog.
	Command []string
	// LocalOnly is set when the local-only constraint applies to the
	// task: an endpoint whose servers may be local or remote (a Locator)
	// uses only the local ones.
	LocalOnly bool
	// Progress, when set, receives progress reports (waiting for a model to
	// load, a retry after a rate limit). It must not block.
	Progress func(Progress)
	// Roots are the folders the turn may touch (scope.Scope.Roots): a tool
	// server that can keep to folders is told them (MCP roots) before the
	// call, a second wall behind the gate.
	Roots []string
	// Workspace is the folder a confined turn keeps to (a user over ssh),
	// "" for none; Chat names the chat the turn belongs to. A path-taking
	// server runs apart for each such chat (endpoints/mcp).
	Workspace, Chat string
}

// PathReader is an endpoint whose models act on what their arguments
// name — open, write or fetch it, as an MCP tool does — rather than read
// them as text: the pipeline's gate judges each value where the model
// would look for it (scope.GateFor) and hands it the path judged.
type PathReader interface {
	// Reads says how model reads a path in its arguments, for a turn
	// confined to workspace ("" for none): the folders it resolves a
	// relative path from and what "~" is to it, or that Chorus cannot
	// know them (Unknown). Tool is false for a model that acts on no
	// path.
	Reads(model, workspace string) scope.Reader
}

// ChatCloser is an endpoint that keeps something for a chat — a server
// started for that chat alone — until the chat ends.
type ChatCloser interface {
	// CloseChat ends what the endpoint keeps for chat.
	CloseChat(chat string)
}

// Arg returns the argument name, trimmed, or an error wrapping ErrBadInput
// that names it and says what it is for ("the image to crop"), so every
// endpoint asks for a missing argument the same way.
func (r Request) Arg(name, what string) (string, error) {
	v := strings.TrimSpace(r.Args[name])
	if v == "" {
		return "", fmt.Errorf("%w: missing argument %q (%s)", ErrBadInput, name, what)
	}
	return v, nil
}

// File returns the media argument name as a file this turn may read, or
// an error wrapping ErrBadInput: a missing argument is asked for as Arg
// asks ("the image to crop"); a path the executor did not hand over as a
// checked file (one the turn may not read) is refused — it also wraps
// scope.ErrDenied — naming the argument and how to allow the file, and
// nothing of it is opened.
func (r Request) File(name, what string) (scope.File, error) {
	if f, ok := r.Files[name]; ok && !f.IsZero() {
		return f, nil
	}
	v := strings.TrimSpace(r.Args[name])
	if v == "" {
		return scope.File{}, fmt.Errorf("%w: missing argument %q (%s)", ErrBadInput, name, what)
	}
	return scope.File{}, Explain(fmt.Sprintf("%v: argument %s (%s) was not given as a file this turn may read — attach it with @%s or --attach to let Chorus read it",
		ErrBadInput, name, v, v), ErrBadInput, scope.ErrDenied)
}

// Progress reports something a slow call is waiting for.
type Progress struct {
	Message string `json:"message"`
	// Wait is how long the endpoint expects to wait before the next try.
	Wait time.Duration `json:"wait,omitempty"`
	// Passing marks a state that the next report replaces (the next
	// provider being tried): a pane shows it until then, not after.
	Passing bool `json:"passing,omitempty"`
}

// Result is what an expert returned.
type Result struct {
	// Text is the task's text product (caption, transcript, answer) or a
	// readable rendering of structured output ("cat 0.98, dog 0.01").
	Text string
	// Data is the structured response as the endpoint returned it
	// (labels with scores, boxes), when there is one.
	Data json.RawMessage
	// Blobs are produced files (images, audio, video). Large ones are
	// temporary files the holder of the Result owns: see Blob.
	Blobs []Blob
	// Provider names who ran the model within the endpoint kind, where a
	// kind reaches several (the Inference Provider behind Hugging Face's
	// router: "fal-ai", "hf-inference"); empty otherwise.
	Provider string
	// Took is how long the call took where that is not the time it took
	// now: a replayed call reports the recorded time, which a fast replay
	// does not wait. Zero: the caller measures it (see Took).
	Took time.Duration
}

// Took is how long a call that ended with res and err says it took — a
// replay's recorded time, from Result.Took or an error made by WithTook —
// and 0 when the caller is to measure it.
func Took(res Result, err error) time.Duration {
	if err == nil {
		return res.Took
	}
	var te *tookError
	if errors.As(err, &te) {
		return te.took
	}
	return 0
}

// WithTook returns err, unchanged for errors.Is, errors.As and its message,
// saying that the failed call took d (a replay's recorded time).
func WithTook(err error, d time.Duration) error {
	if err == nil || d <= 0 {
		return err
	}
	return &tookError{err: err, took: d}
}

type tookError struct {
	err  error
	took time.Duration
}

func (e *tookError) Error() string { return e.err.Error() }
func (e *tookError) Unwrap() error { return e.err }

// Discard removes the temporary files of a result that is not kept, so a
// failed or abandoned task leaves nothing behind. Blobs held in memory
// need nothing.
func (r Result) Discard() {
	for _, b := range r.Blobs {
		b.Remove()
	}
}

// Endpoint runs models of one kind.
type Endpoint interface {
	// Kind names the endpoint family.
	Kind() skills.EndpointKind
	// Check reports whether the endpoint can serve model for task now. nil
	// means yes; otherwise the error says why not and how to fix it (no
	// token, server not reachable, program not installed). It must be cheap:
	// implementations cache reachability.
	Check(ctx context.Context, task, model string) error
	// Infer runs the model. It returns errors that wrap the sentinel errors
	// of this package so the executor knows whether another candidate may
	// succeed.
	Infer(ctx context.Context, req Request) (Result, error)
}

// Discoverer is implemented by endpoints that offer models the catalog does
// not list, such as the vision models pulled into Ollama; an offer is
// served by the endpoint's Kind.
type Discoverer interface {
	Endpoint
	// Discover returns the models this endpoint can serve for task now.
	Discover(ctx context.Context, task string) ([]Offer, error)
}

// ProviderNamer is implemented by endpoints that reach a model through one
// of several providers (Hugging Face's Inference Providers), so selection
// can say which one a task will use before it runs.
type ProviderNamer interface {
	// Provider names the provider a call of model for task would try
	// first now ("fal-ai"), or "" when the endpoint cannot tell without
	// the network — the call itself asks the Hub which providers serve
	// the model, and the answer may differ from the catalog's, so a
	// provider named before that would be a guess. It never touches the
	// network.
	Provider(task, model string) string
}

// ProviderResolver is a ProviderNamer that can find out which provider a
// call will try first by asking what the call itself would ask (the Hub's
// provider mapping; the answer is cached and shared with the call): the
// executor names it when a task starts, `chorus models list` for every
// candidate.
type ProviderResolver interface {
	ProviderNamer
	// ResolveProvider names the provider a call of model for task will
	// try first, asking the network if it must; "" when no provider can
	// run it (the call will say why).
	ResolveProvider(ctx context.Context, task, model string) string
}

// Guarded is implemented by endpoints whose models may change things
// outside Chorus (an MCP tool not annotated read-only): the executor asks
// the turn's approval before such a call, and refuses it without one.
type Guarded interface {
	// NeedsApproval says why a call of model for task must be approved
	// first ("it is not annotated read-only"), or "" when it need not.
	NeedsApproval(task, model string) string
}

// Offer is a model a Discoverer can serve.
type Offer struct {
	ID          string
	Description string
	Params      int64
	SizeBytes   int64
	License     string
	// Niche says what a special-purpose model is limited to ("US English
	// only"): it ranks after the general models of its task, as a
	// catalog model's niche does.
	Niche string
	// Configured marks a model the user named in the configuration for
	// this task (an OpenAI-compatible server's models): it ranks ahead of
	// the catalog's general models, since naming it is asking for it.
	Configured bool
}

// Locator is implemented by endpoints whose servers may run on this
// machine or its network, or elsewhere (an OpenAI-compatible server is
// either a laptop's LocalAI or a cloud API), so the local-only
// constraint can rule out the remote ones.
type Locator interface {
	// Remote says why the server that would run model for task is not
	// local ("api.example.com is not a loopback or private address"), or
	// "" when it is. It never touches the network.
	Remote(task, model string) string
}

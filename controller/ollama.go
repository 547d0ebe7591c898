package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/scope"
)

// newOllamaBackend reaches the Ollama server at s. The prompt in a POST's
// body (and a password in OLLAMA_HOST) goes only to the configured origin:
// a redirect elsewhere is refused and said with where it pointed.
func newOllamaBackend(s Server) *ollamaBackend {
	return &ollamaBackend{client: api.NewClient(s.URL, scope.Credentialed(s.HTTP))}
}

// ollamaBackend reaches an Ollama server through its official client. It
// is the only place of the controller that knows the client's types, and
// Ollama's words: its fixes (`ollama serve`, `ollama pull X`) and how it
// says a model is missing.
type ollamaBackend struct {
	client *api.Client
}

// Hints are Ollama's fixes.
func (o *ollamaBackend) Hints() Hints {
	return Hints{
		Server:  "Ollama",
		Tag:     "ollama",
		Start:   "start it with `ollama serve` (or set OLLAMA_HOST / controller.host)",
		Point:   "point OLLAMA_HOST or controller.host at `ollama serve`",
		Missing: "not pulled",
		Fetch: func(model string) string {
			return fmt.Sprintf("run `ollama pull %s` or /pull %s", model, model)
		},
	}
}

func (o *ollamaBackend) Models(ctx context.Context) ([]ModelInfo, error) {
	resp, err := o.client.List(ctx)
	if err != nil {
		return nil, ollamaError(err)
	}
	out := make([]ModelInfo, len(resp.Models))
	for i, m := range resp.Models {
		out[i] = ModelInfo{
			Name:              m.Name,
			Model:             m.Model,
			Size:              m.Size,
			Modified:          m.ModifiedAt,
			Digest:            m.Digest,
			Family:            m.Details.Family,
			ParameterSize:     m.Details.ParameterSize,
			QuantizationLevel: m.Details.QuantizationLevel,
		}
	}
	return out, nil
}

func (o *ollamaBackend) Capabilities(ctx context.Context, model string) ([]string, error) {
	resp, err := o.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return nil, ollamaError(err)
	}
	caps := make([]string, 0, len(resp.Capabilities))
	for _, cp := range resp.Capabilities {
		caps = append(caps, string(cp))
	}
	return caps, nil
}

// ContextLength reads the trained context from the model's model_info
// ("<architecture>.context_length"); 0 when it has none.
func (o *ollamaBackend) ContextLength(ctx context.Context, model string) (int, error) {
	resp, err := o.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return 0, ollamaError(err)
	}
	// model_info is decoded JSON: its numbers are float64.
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	if n, ok := resp.ModelInfo[arch+".context_length"].(float64); ok {
		return int(n), nil
	}
	return 0, nil
}

func (o *ollamaBackend) Version(ctx context.Context) (string, error) {
	v, err := o.client.Version(ctx)
	return v, ollamaError(err)
}

func (o *ollamaBackend) Chat(ctx context.Context, req ChatRequest, fn func(ChatChunk)) error {
	opts := map[string]any{"temperature": req.Temperature}
	if req.NumCtx > 0 {
		opts["num_ctx"] = req.NumCtx
	}
	if req.NumPredict > 0 {
		opts["num_predict"] = req.NumPredict
	}
	msgs := make([]api.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = api.Message{Role: m.Role, Content: m.Content}
		for _, img := range m.Images {
			msgs[i].Images = append(msgs[i].Images, api.ImageData(img))
		}
	}
	areq := &api.ChatRequest{Model: req.Model, Messages: msgs, Format: req.Format, Options: opts}
	if req.NoThink {
		areq.Think = &api.ThinkValue{Value: false}
	}
	if req.KeepAlive > 0 {
		areq.KeepAlive = &api.Duration{Duration: req.KeepAlive}
	}
	err := o.client.Chat(ctx, areq, func(r api.ChatResponse) error {
		other := 0
		if len(r.Message.ToolCalls) > 0 {
			b, _ := json.Marshal(r.Message.ToolCalls)
			other = len(b)
		}
		fn(ChatChunk{
			Content:            r.Message.Content,
			Reasoning:          len(r.Message.Thinking),
			Other:              other,
			Done:               r.Done,
			DoneReason:         r.DoneReason,
			PromptEvalCount:    r.PromptEvalCount,
			PromptEvalDuration: r.PromptEvalDuration,
			EvalCount:          r.EvalCount,
			EvalDuration:       r.EvalDuration,
		})
		return nil
	})
	return ollamaError(err)
}

func (o *ollamaBackend) Pull(ctx context.Context, model string, fn func(PullProgress)) error {
	err := o.client.Pull(ctx, &api.PullRequest{Model: model}, func(p api.ProgressResponse) error {
		fn(PullProgress{Status: p.Status, Digest: p.Digest, Total: p.Total, Completed: p.Completed})
		return nil
	})
	err = ollamaError(err)
	// Ollama says a name the library does not have in the words of its
	// registry ("pull model manifest: file does not exist"); the fix is
	// the name.
	var se *StatusError
	if errors.As(err, &se) && strings.Contains(se.Message, noManifest) {
		se.Message += " — there is no model " + model + " in the Ollama library: check its name and tag (https://ollama.com/library)"
	} else if err != nil && strings.Contains(err.Error(), noManifest) {
		err = fmt.Errorf("%w — there is no model %s in the Ollama library: check its name and tag (https://ollama.com/library)", err, model)
	}
	return err
}

// noManifest is how Ollama's pull says the library has no such model.
const noManifest = "pull model manifest: file does not exist"

// notFound is how Ollama says a model is missing.
var notFound = regexp.MustCompile(`(?i)model .* not found|not found, try pulling`)

// ollamaError turns the client's errors into the controller's: a status
// error into a *StatusError (a missing model classified by Ollama's
// words), an answer the client could not read as Ollama's JSON into
// ErrWrongServer; transport errors and cancellation pass through.
func ollamaError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, scope.ErrRedirected) {
		to, _ := scope.RedirectTarget(err)
		return &Error{Err: err, Detail: fmt.Sprintf("%s — if the server has moved, set OLLAMA_HOST or controller.host to %s", rootCause(err), movedOrigin(to))}
	}
	var se api.StatusError
	if errors.As(err, &se) {
		out := &StatusError{Code: se.StatusCode, Status: se.Status, Message: se.ErrorMessage, Err: err}
		if notFound.MatchString(se.ErrorMessage) {
			out.Kind = ErrModelMissing
		}
		return out
	}
	switch {
	case notFound.MatchString(err.Error()):
		return &Error{Err: ErrModelMissing, Detail: err.Error()}
	case strings.HasPrefix(err.Error(), "unmarshal:"):
		// The client could not read the answer as Ollama's JSON stream.
		return &Error{Err: ErrWrongServer, Detail: "its answer is not Ollama's JSON"}
	}
	return err
}

// movedOrigin is the server a redirect target names: its scheme and host,
// Ollama's routes being fixed (…/api/chat → …).
func movedOrigin(to string) string {
	u, err := url.Parse(to)
	if err != nil || u.Host == "" {
		return to
	}
	return u.Scheme + "://" + u.Host
}

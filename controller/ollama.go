package controller

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/ollama/ollama/api"
)

// ollamaBackend reaches an Ollama server through its official client. It
// is the only place of the controller that knows the client's types.
type ollamaBackend struct {
	client *api.Client
}

func newOllamaBackend(base *url.URL, hc *http.Client) *ollamaBackend {
	return &ollamaBackend{client: api.NewClient(base, hc)}
}

func (o *ollamaBackend) list(ctx context.Context) ([]ModelInfo, error) {
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

func (o *ollamaBackend) capabilities(ctx context.Context, model string) ([]string, error) {
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

func (o *ollamaBackend) version(ctx context.Context) (string, error) {
	v, err := o.client.Version(ctx)
	return v, ollamaError(err)
}

func (o *ollamaBackend) chat(ctx context.Context, req chatRequest, fn func(chatChunk)) error {
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
		fn(chatChunk{
			Content:            r.Message.Content,
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

func (o *ollamaBackend) pull(ctx context.Context, model string, fn func(PullProgress)) error {
	err := o.client.Pull(ctx, &api.PullRequest{Model: model}, func(p api.ProgressResponse) error {
		fn(PullProgress{Status: p.Status, Digest: p.Digest, Total: p.Total, Completed: p.Completed})
		return nil
	})
	return ollamaError(err)
}

// ollamaError turns the client's status error into a *statusError; other
// errors (transport, cancellation) pass through unchanged.
func ollamaError(err error) error {
	var se api.StatusError
	if errors.As(err, &se) {
		return &statusError{Code: se.StatusCode, Status: se.Status, Message: se.ErrorMessage, err: err}
	}
	return err
}

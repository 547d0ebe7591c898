package controller

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"
)

// ModelInfo describes a model the server has, as /model lists them.
type ModelInfo struct {
	// Name is the name to ask for ("qwen3:8b"); Model is the server's
	// own name for it, usually the same.
	Name  string
	Model string
	// Size is the download size in bytes.
	Size     int64
	Modified time.Time
	Digest   string
	// Family, ParameterSize ("8.2B") and QuantizationLevel ("Q4_K_M")
	// are what the server says; empty when it does not.
	Family            string
	ParameterSize     string
	QuantizationLevel string
}

// PullProgress is one progress report of a model download.
type PullProgress struct {
	// Status is what the server is doing ("pulling manifest", "pulling
	// 6a0746a1ec1a", "success").
	Status string
	// Digest names the layer being downloaded, if any.
	Digest string
	// Total and Completed count that layer's bytes; 0 when unknown.
	Total     int64
	Completed int64
}

// Capabilities returns the model's capabilities ("completion", "vision",
// "thinking", …), cached after the first successful call.
func (c *Controller) Capabilities(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	caps, ok := c.caps[c.model]
	c.mu.Unlock()
	if ok {
		return caps, nil
	}
	caps, err := c.backend.Capabilities(ctx, c.model)
	if err != nil {
		return nil, c.wrap(err)
	}
	c.mu.Lock()
	c.caps[c.model] = caps
	c.mu.Unlock()
	return caps, nil
}

// ContextLength is the context the model was trained for, in tokens, as
// the server says (Ollama's model_info); 0 when its backend does not say.
// It is not what a call asks for (controller.num_ctx).
func (c *Controller) ContextLength(ctx context.Context) (int, error) {
	b, ok := c.backend.(ContextLengther)
	if !ok {
		return 0, nil
	}
	n, err := b.ContextLength(ctx, c.model)
	if err != nil {
		return 0, c.wrap(err)
	}
	return n, nil
}

// CanSee reports whether the controller model accepts images. Errors count
// as no: grounding is an enhancement, never a reason to fail a turn.
func (c *Controller) CanSee(ctx context.Context) bool {
	caps, err := c.Capabilities(ctx)
	return err == nil && slices.Contains(caps, "vision")
}

// thinks reports whether the model knows the think flag.
func (c *Controller) thinks(ctx context.Context) bool {
	caps, err := c.Capabilities(ctx)
	return err == nil && slices.Contains(caps, "thinking")
}

// Models lists the models the server has.
func (c *Controller) Models(ctx context.Context) ([]ModelInfo, error) {
	ms, err := c.backend.Models(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	return ms, nil
}

// Pull downloads a model, reporting progress through fn. A server whose
// backend is not a Puller answers ErrCannotPull.
func (c *Controller) Pull(ctx context.Context, model string, fn func(PullProgress)) error {
	p, ok := c.backend.(Puller)
	if !ok {
		return &Error{Host: c.host, Model: model, Err: ErrCannotPull, hints: c.hints}
	}
	start := time.Now()
	c.log.LogAttrs(ctx, slog.LevelInfo, "pull started", slog.String("host", c.host), slog.String("model", model))
	err := p.Pull(ctx, model, func(p PullProgress) {
		if fn != nil {
			fn(p)
		}
	})
	err = c.pullError(ctx, model, err)
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
	}
	c.log.LogAttrs(ctx, level, "pull finished", slog.String("model", model), slog.Duration("elapsed", time.Since(start)), errAttr(err))
	if err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.caps, model)
	c.mu.Unlock()
	return nil
}

// pullError classifies a failed pull: a cancellation is the caller's, a
// refusal carries the server's words, anything else is classified for
// model rather than the controller's own model.
func (c *Controller) pullError(ctx context.Context, model string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *StatusError
	if errors.As(err, &se) {
		return &Error{Host: c.host, Model: model, Err: err, Detail: se.Message, hints: c.hints}
	}
	return (&Controller{host: c.host, model: model, hints: c.hints}).wrap(err)
}

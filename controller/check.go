package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Status describes the controller's server and model.
type Status struct {
	Reachable    bool
	Version      string
	Pulled       bool
	Capabilities []string
	// Err explains what is wrong; nil when the controller is ready.
	Err error
}

// Check asks the server whether it is up and has the model.
//
// It asks only what it needs, in the order that tells most: the model list
// (reachability, and whether the model is pulled), then the model's
// capabilities; the version is informational. A server that lacks one of
// the informational routes is not declared down for it.
//
// A cancelled ctx is reported as such (Err is ctx's error), not as an
// unreachable server: the caller gave up, the server did nothing wrong.
func (c *Controller) Check(parent context.Context) Status {
	st := c.check(parent)
	level := slog.LevelInfo
	if st.Err != nil {
		level = slog.LevelWarn
	}
	// The TUI checks every few seconds while the server is missing: only a
	// change is worth a record at the default level.
	outcome := fmt.Sprint(st.Reachable, st.Pulled, st.Err)
	c.mu.Lock()
	if c.lastCheck == outcome {
		level = slog.LevelDebug
	}
	c.lastCheck = outcome
	c.mu.Unlock()
	c.log.LogAttrs(parent, level, "controller check", slog.String("host", c.host), slog.String("model", c.model),
		slog.Bool("reachable", st.Reachable), slog.Bool("pulled", st.Pulled), slog.String("version", st.Version),
		slog.String("capabilities", strings.Join(st.Capabilities, ",")), errAttr(st.Err))
	return st
}

func (c *Controller) check(parent context.Context) Status {
	ctx, cancel := context.WithTimeout(parent, 10*time.Second)
	defer cancel()
	// The three questions go out together: each is a round trip, and a
	// turn waits for the answers before its first controller call. The
	// list decides; the other two are read only when it allows.
	var (
		wg      sync.WaitGroup
		version string
		caps    []string
		capsErr error
	)
	wg.Add(2)
	go func() { defer wg.Done(); version = c.version(ctx) }()
	go func() { defer wg.Done(); caps, capsErr = c.Capabilities(ctx) }()
	list, err := c.backend.Models(ctx)
	wg.Wait()
	listed := err == nil
	var se *StatusError
	switch {
	case parent.Err() != nil:
		return Status{Err: parent.Err()}
	case err == nil:
		if !hasModel(list, c.model) {
			return Status{Reachable: true, Version: version, Err: c.newError(ErrModelMissing, "")}
		}
	case errors.As(err, &se):
		// Listing is refused or missing; the capabilities call still
		// tells whether the model exists.
	default:
		return Status{Err: c.wrap(err)}
	}
	st := Status{Reachable: true, Pulled: true, Version: version}
	if capsErr != nil {
		// A model the list shows is pulled, whatever the server says
		// about its details.
		if errors.Is(capsErr, ErrUnreachable) || !listed && (errors.Is(capsErr, ErrModelMissing) || errors.Is(capsErr, ErrWrongServer)) {
			st.Pulled, st.Err = false, capsErr
			st.Reachable = !errors.Is(capsErr, ErrUnreachable)
		}
		return st
	}
	st.Capabilities = caps
	return st
}

// hasModel reports whether name is among the server's models, with the
// default ":latest" tag (Ollama's, and llama.cpp's model names) applied on
// either side.
func hasModel(models []ModelInfo, name string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if !strings.Contains(s[strings.LastIndex(s, "/")+1:], ":") {
			s += ":latest"
		}
		return s
	}
	want := norm(name)
	for _, m := range models {
		if norm(m.Name) == want || norm(m.Model) == want {
			return true
		}
	}
	return false
}

// errAttr is the error of a log record; empty when there is none.
func errAttr(err error) slog.Attr {
	if err == nil {
		return slog.Attr{}
	}
	return slog.String("err", err.Error())
}

// version asks a Versioner for its version; "" when the backend is not one
// or the server does not say.
func (c *Controller) version(ctx context.Context) string {
	v, ok := c.backend.(Versioner)
	if !ok {
		return ""
	}
	s, _ := v.Version(ctx)
	return s
}

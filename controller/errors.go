package controller

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/chorusai/chorus/text"
)

// ErrOllamaUnreachable means the controller's Ollama server did not answer.
var ErrOllamaUnreachable = errors.New("ollama not reachable")

// ErrModelNotPulled means the controller model is not in Ollama.
var ErrModelNotPulled = errors.New("model not pulled")

// ErrNotOllama means something answers at the host, but not as Ollama
// does: a web server or another service on that port.
var ErrNotOllama = errors.New("not an Ollama server")

// Error is a controller failure with the fix spelled out: the user reads
// its text, so it names the command that repairs the problem.
type Error struct {
	Host  string
	Model string
	// Err is ErrOllamaUnreachable, ErrModelNotPulled, or the underlying error.
	Err error
	// Detail is the server's message or the transport error.
	Detail string
}

// Error says what failed and how to fix it. The host is shown without a
// password its URL may carry (text.RedactURLs).
func (e *Error) Error() string { return text.RedactURLs(e.message()) }

func (e *Error) message() string {
	switch {
	case errors.Is(e.Err, ErrOllamaUnreachable):
		return fmt.Sprintf("Ollama is not reachable at %s — start it with `ollama serve` (or set OLLAMA_HOST / controller.host)", e.Host)
	case errors.Is(e.Err, ErrModelNotPulled):
		return fmt.Sprintf("model %s is not pulled — run `ollama pull %s` or /pull %s", e.Model, e.Model, e.Model)
	case errors.Is(e.Err, ErrNotRecorded):
		return e.Detail
	case errors.Is(e.Err, ErrNotOllama):
		return fmt.Sprintf("something answers at %s, but not as Ollama does (%s) — point OLLAMA_HOST or controller.host at `ollama serve`", e.Host, e.Detail)
	}
	return fmt.Sprintf("Ollama (%s, model %s): %s", e.Host, e.Model, e.Detail)
}

// Unwrap returns the classifying error.
func (e *Error) Unwrap() error { return e.Err }

// statusError is a server's refusal as a backend reports it: the HTTP
// status and the server's own message. Backends translate their client's
// error type into it so that classification (wrap) needs no client types.
type statusError struct {
	Code    int
	Status  string
	Message string
	// err is the client's own error, kept for its text and for errors.As.
	err error
}

func (e *statusError) Error() string { return e.err.Error() }

func (e *statusError) Unwrap() error { return e.err }

var notFound = regexp.MustCompile(`(?i)model .* not found|not found, try pulling`)

// wrap classifies a backend error into an *Error naming the fix.
func (c *Controller) wrap(err error) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	var se *statusError
	if errors.As(err, &se) {
		if notFound.MatchString(se.Message) {
			return &Error{Host: c.host, Model: c.model, Err: ErrModelNotPulled, Detail: se.Message}
		}
		if se.Code == http.StatusNotFound {
			// Ollama answers a missing model with "model … not found";
			// a bare 404 comes from a server without Ollama's routes.
			return &Error{Host: c.host, Model: c.model, Err: ErrNotOllama,
				Detail: fmt.Sprintf("HTTP 404: %s", text.OneLine(cmp.Or(se.Message, se.Status), 80))}
		}
		msg := se.Message
		if msg == "" {
			msg = se.Status
		}
		return &Error{Host: c.host, Model: c.model, Err: err, Detail: fmt.Sprintf("HTTP %d: %s", se.Code, msg)}
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || errors.Is(err, os.ErrDeadlineExceeded) || strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "EOF") {
		return &Error{Host: c.host, Model: c.model, Err: ErrOllamaUnreachable, Detail: err.Error()}
	}
	if notFound.MatchString(err.Error()) {
		return &Error{Host: c.host, Model: c.model, Err: ErrModelNotPulled, Detail: err.Error()}
	}
	if strings.HasPrefix(err.Error(), "unmarshal:") {
		// The client could not read the answer as Ollama's JSON stream.
		return &Error{Host: c.host, Model: c.model, Err: ErrNotOllama, Detail: "its answer is not Ollama's JSON"}
	}
	return &Error{Host: c.host, Model: c.model, Err: err, Detail: err.Error()}
}

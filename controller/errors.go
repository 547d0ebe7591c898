package controller

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chorusai/chorus/text"
)

// ErrUnreachable means the controller server did not answer.
var ErrUnreachable = errors.New("controller server not reachable")

// ErrModelMissing means the controller server does not have the model.
var ErrModelMissing = errors.New("model not on the controller server")

// ErrWrongServer means something answers at the host, but not as the
// controller server's kind does: a web server or another service on that
// port.
var ErrWrongServer = errors.New("not the controller server")

// ErrCannotPull means the controller server cannot download models: its
// backend is not a Puller.
var ErrCannotPull = errors.New("the controller server cannot pull models")

// Error is a controller failure with the fix spelled out: the user reads
// its text, so it names what repairs the problem, in the words of the
// server's backend (its Hints).
type Error struct {
	Host  string
	Model string
	// Err is ErrUnreachable, ErrModelMissing, ErrWrongServer,
	// ErrCannotPull, ErrNotRecorded, or the underlying error.
	Err error
	// Detail is the server's message or the transport error.
	Detail string

	// hints are the backend's words; the zero value means DefaultHints.
	hints Hints
}

// Error says what failed and how to fix it. The host is shown without a
// password its URL may carry (text.RedactURLs).
func (e *Error) Error() string { return text.RedactURLs(e.message()) }

func (e *Error) message() string {
	h := e.hints.fill()
	switch {
	case errors.Is(e.Err, ErrUnreachable):
		return fmt.Sprintf("%s is not reachable at %s — %s", sentence(h.Server), e.Host, h.Start)
	case errors.Is(e.Err, ErrModelMissing):
		return fmt.Sprintf("model %s is %s — %s", e.Model, h.Missing, h.fix(e.Model))
	case errors.Is(e.Err, ErrNotRecorded):
		return e.Detail
	case errors.Is(e.Err, ErrWrongServer):
		return fmt.Sprintf("something answers at %s, but not as %s does (%s) — %s", e.Host, h.Server, e.Detail, h.Point)
	case errors.Is(e.Err, ErrCannotPull):
		return fmt.Sprintf("%s at %s cannot download models — get %s onto it another way, or pick a model it has with /model", sentence(h.Server), e.Host, e.Model)
	}
	return fmt.Sprintf("%s (%s, model %s): %s", sentence(h.Server), e.Host, e.Model, e.Detail)
}

// Unwrap returns the classifying error.
func (e *Error) Unwrap() error { return e.Err }

// fix says how to get a model the server lacks.
func (h Hints) fix(model string) string {
	if h.Fetch != nil {
		return h.Fetch(model)
	}
	return "pick one it has with /model, or set controller.model"
}

// sentence capitalises the first letter of s, to open a sentence.
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// StatusError is a server's refusal as a backend reports it: the HTTP
// status and the server's own message. Backends translate their client's
// error type into it so that the Controller's classification needs no
// client types.
type StatusError struct {
	Code    int
	Status  string
	Message string
	// Kind classifies the refusal when the backend knows its server's
	// words for it (ErrModelMissing for Ollama's "model … not found");
	// nil lets the Controller decide by Code (404 is ErrWrongServer).
	Kind error
	// Err is the client's own error, kept for its text and for errors.As;
	// nil when there is none.
	Err error
}

func (e *StatusError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, cmp.Or(e.Message, e.Status))
}

// Unwrap returns the classification and the client's error.
func (e *StatusError) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Kind, e.Err} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// kinds of failure a backend may classify itself.
var classes = []error{ErrUnreachable, ErrModelMissing, ErrWrongServer, ErrCannotPull}

// wrap classifies a backend error into an *Error naming the fix.
func (c *Controller) wrap(err error) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		// A backend's own classification: fill in what it could not know.
		out := *ce
		out.Host, out.Model = cmp.Or(out.Host, c.host), cmp.Or(out.Model, c.model)
		if out.hints.Server == "" {
			out.hints = c.hints
		}
		if out.Detail == "" && !slices.Contains(classes, out.Err) {
			out.Detail = out.Err.Error()
		}
		return &out
	}
	var se *StatusError
	if errors.As(err, &se) {
		msg := cmp.Or(se.Message, se.Status)
		switch {
		case se.Kind != nil:
			return c.newError(se.Kind, msg)
		case se.Code == http.StatusNotFound:
			// A missing model is the backend's to recognise; a bare 404
			// comes from a server without the backend's routes.
			return c.newError(ErrWrongServer, fmt.Sprintf("HTTP 404: %s", text.OneLine(msg, 80)))
		}
		return c.newError(err, fmt.Sprintf("HTTP %d: %s", se.Code, msg))
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || errors.Is(err, os.ErrDeadlineExceeded) || strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "EOF") {
		return c.newError(ErrUnreachable, err.Error())
	}
	return c.newError(err, err.Error())
}

// newError is an *Error of this controller's server and model.
func (c *Controller) newError(kind error, detail string) *Error {
	return &Error{Host: c.host, Model: c.model, Err: kind, Detail: detail, hints: c.hints}
}

package endpoints

import (
	"errors"
	"fmt"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// Sentinel errors endpoints wrap, so callers decide with errors.Is.
var (
	// ErrUnavailable means this endpoint cannot serve the model (the provider
	// does not host it, the local server has not loaded it, the program is
	// not installed). Another candidate may work.
	ErrUnavailable = errors.New("model not available on this endpoint")
	// ErrUnauthorized means the credentials were missing, wrong or expired.
	ErrUnauthorized = errors.New("not authorized")
	// ErrRateLimited means the endpoint kept refusing with 429 after backing off.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnreachable means the server did not answer at all.
	ErrUnreachable = errors.New("endpoint not reachable")
	// ErrBadInput means the request itself was wrong (missing argument,
	// unreadable file); another model will not fix it.
	ErrBadInput = errors.New("bad input")
	// ErrUnsupported means the endpoint kind cannot run this task at all.
	ErrUnsupported = errors.New("task not supported by this endpoint")
)

// HTTPError is a non-success answer from an HTTP endpoint.
type HTTPError struct {
	Kind  skills.EndpointKind
	Model string
	// Provider is the Inference Provider that answered, where the kind
	// reaches several ("fal-ai"); empty otherwise.
	Provider string
	Status   int
	Message  string
	// Said is what the server itself said, where Message wraps it in
	// advice ("… failed to run the model (server said: …) — try another
	// model"): a one-line summary (WhyFailed) shows it alone.
	Said string
	// Err is the sentinel that classifies the status, if any.
	Err error
}

// Error names the kind, the provider and the model, then the status where
// it is a failure one, then the message.
func (e *HTTPError) Error() string {
	msg := text.RedactURLs(e.Message)
	if msg == "" {
		msg = "no message"
	}
	who := fmt.Sprintf("%s %s", e.Kind, e.Model)
	if e.Provider != "" {
		who = fmt.Sprintf("%s (%s) %s", e.Kind, e.Provider, e.Model)
	}
	if e.Status >= 200 && e.Status < 300 {
		// The server answered, and the failure is in what it said
		// (models_server's {"error": …} with 200, a failed prediction):
		// "HTTP 200" next to a failure only puzzles the reader.
		return fmt.Sprintf("%s: %s", who, msg)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", who, e.Status, msg)
}

// Unwrap returns the classifying sentinel.
func (e *HTTPError) Unwrap() error { return e.Err }

// Explain returns an error whose message is msg, written for the user (what
// went wrong and how to fix it), and which wraps classes — sentinels of this
// package and the causes behind them — for errors.Is and errors.As. Unlike
// fmt.Errorf with %w, the wrapped errors' texts are not added to msg.
func Explain(msg string, classes ...error) error {
	// A configured URL named in msg may carry a password: it never shows.
	return &explained{msg: text.RedactURLs(msg), errs: classes}
}

// explained is the error Explain returns.
type explained struct {
	msg  string
	errs []error
}

func (e *explained) Error() string   { return e.msg }
func (e *explained) Unwrap() []error { return e.errs }

// Retryable reports whether another candidate model might succeed where err
// failed. Bad input fails the task outright.
func Retryable(err error) bool {
	return err != nil && !errors.Is(err, ErrBadInput)
}

package endpoints

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/chorusai/chorus/text"
)

// AllFailed is the error of a call that tried several providers (or
// servers) of one model and every one failed. Its message tells each
// failure in full; it classifies as the last one (errors.Is, errors.As),
// since that one decided that nothing more was tried, and Errs keeps every
// failure for a summary (WhyFailed).
type AllFailed struct {
	Msg  string
	Errs []error
}

func (e *AllFailed) Error() string { return e.Msg }

// Unwrap returns the last failure, which classifies the error.
func (e *AllFailed) Unwrap() error {
	if len(e.Errs) == 0 {
		return nil
	}
	return e.Errs[len(e.Errs)-1]
}

// WhyFailed says in a few words why a call failed, for a line that must stay one
// line — a fallback in the Execution pane, the model that ran "after X
// failed: …": "not served by fal-ai (404), replicate (404)", "hf-inference
// failed (503): Service Unavailable", "unreachable". The full error belongs
// in the log and --debug.
func WhyFailed(err error) string {
	if err == nil {
		return ""
	}
	var all *AllFailed
	if errors.As(err, &all) && len(all.Errs) > 1 {
		var served, others []string
		for _, e := range all.Errs {
			var he *HTTPError
			if errors.As(e, &he) && he.Status == http.StatusNotFound {
				served = append(served, fmt.Sprintf("%s (404)", he.who()))
				continue
			}
			others = append(others, briefOne(e))
		}
		if len(served) > 0 {
			others = append([]string{"not served by " + strings.Join(served, ", ")}, others...)
		}
		return strings.Join(others, "; ")
	}
	return briefOne(err)
}

func briefOne(err error) string {
	var he *HTTPError
	if errors.As(err, &he) {
		who, msg := he.who(), text.OneLine(cmp.Or(he.Said, he.Message), 60)
		switch {
		case he.Status == http.StatusNotFound:
			return fmt.Sprintf("not served by %s (404)", who)
		case he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden:
			return fmt.Sprintf("%s refused the token (%d)", who, he.Status)
		case he.Status == http.StatusPaymentRequired:
			return fmt.Sprintf("%s wants payment (402)", who)
		case he.Status == http.StatusTooManyRequests:
			return fmt.Sprintf("rate limited by %s (429)", who)
		case he.Status >= 200 && he.Status < 300 && msg != "":
			return fmt.Sprintf("%s: %s", who, msg)
		case msg != "":
			return fmt.Sprintf("%s failed (%d): %s", who, he.Status, msg)
		}
		return fmt.Sprintf("%s failed (%d)", who, he.Status)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return text.OneLine(err.Error(), 100)
}

// who names the server that answered: the provider behind a kind that
// reaches several, else the kind.
func (e *HTTPError) who() string {
	if e.Provider != "" {
		return e.Provider
	}
	return string(e.Kind)
}

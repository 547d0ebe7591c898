package scope

import (
	"errors"
	"fmt"
	"strings"
)

// ErrDenied is what every refusal wraps, for errors.Is.
var ErrDenied = errors.New("outside what this turn may touch")

// DeniedError is a refused path or URL. Its message names what was refused
// and how to allow it, and never quotes a file's contents.
type DeniedError struct {
	// What is the path or URL as it was asked for.
	What string
	// Resolved is the real path it resolved to, when that differs.
	Resolved string
	// Reason says why, for a URL (a private address, a redirect).
	Reason string
	// URL is true for a URL, false for a path.
	URL bool
	// Root is the folder the scope is confined to, when the path lies
	// outside it (a user over ssh): attaching it would not help.
	Root string
}

func (e *DeniedError) Error() string {
	if e.URL {
		if e.Reason != "" {
			return fmt.Sprintf("%s was not fetched: %s — type that exact URL in your request to allow it", e.What, e.Reason)
		}
		return fmt.Sprintf("%s was not fetched: neither you nor a task of this turn gave that URL — type it in your request to allow it", e.What)
	}
	if e.Root != "" && strings.HasPrefix(e.What, "~/") {
		return fmt.Sprintf("%s is outside your folder on this server (%s): a tool reads ~ as the server's home — name the file from your folder, as %s", e.What, e.Root, e.What[2:])
	}
	if e.Root != "" {
		return fmt.Sprintf("%s is outside your folder on this server (%s) — Chorus reads only files there for you", e.What, e.Root)
	}
	what := e.What
	if e.Resolved != "" && e.Resolved != e.What {
		what = fmt.Sprintf("%s (→ %s)", e.What, e.Resolved)
	}
	return fmt.Sprintf("%s is not a file you gave this turn — attach it with @%s or --attach to let Chorus read it", what, e.What)
}

// Unwrap makes errors.Is(err, ErrDenied) hold.
func (e *DeniedError) Unwrap() error { return ErrDenied }

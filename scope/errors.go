package scope

import (
	"errors"
	"fmt"
	"strings"

	"github.com/chorusai/chorus/text"
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
	// Base names the folder a relative path was read from when that
	// reading put it outside the grant ("the home folder /home/u").
	Base string
	// Why, when set, says why a path is refused in place of the usual
	// words (a path too long, one naming no file yet, a relative path
	// for a tool whose folder Chorus cannot know).
	Why string
	// Tool: a URL in a tool's argument (the tool would fetch it), not
	// one Chorus fetches. Confined: the turn is a user's over ssh, whose
	// typed URL gets no exception.
	Tool, Confined bool
}

func (e *DeniedError) Error() string {
	if e.URL {
		return e.urlError()
	}
	what := text.Clip(e.What, 300)
	if e.Why != "" {
		return what + " " + e.Why
	}
	if e.Root != "" && e.Base != "" {
		return fmt.Sprintf("%s, read from %s, is outside your folder on this server (%s) — write the path from your folder", what, e.Base, e.Root)
	}
	if e.Root != "" && strings.HasPrefix(e.What, "~/") {
		return fmt.Sprintf("%s is outside your folder on this server (%s): a tool reads ~ as the server's home — name the file from your folder, as %s", e.What, e.Root, e.What[2:])
	}
	if e.Root != "" {
		return fmt.Sprintf("%s is outside your folder on this server (%s) — Chorus reads only files there for you", e.What, e.Root)
	}
	named := what
	switch {
	case e.Base != "":
		named = fmt.Sprintf("%s (read from %s: %s)", what, e.Base, e.Resolved)
	case e.Resolved != "" && e.Resolved != e.What:
		named = fmt.Sprintf("%s (→ %s)", what, e.Resolved)
	}
	msg := fmt.Sprintf("%s is not a file you gave this turn — attach it with @%s or --attach to let Chorus read it", named, what)
	if e.Base != "" {
		msg += ", or write the full path of the file you mean"
	}
	return msg
}

// urlError is the refusal of a URL: fetched by Chorus, or handed to a
// tool that would fetch it.
func (e *DeniedError) urlError() string {
	verb := "was not fetched"
	if e.Tool {
		verb = "was not handed to the tool"
	}
	fix := " — type that exact URL in your request to allow it"
	if e.Confined {
		fix = " — for a user over ssh, Chorus reaches only public addresses, even typed"
	}
	if e.Reason != "" {
		return fmt.Sprintf("%s %s: %s%s", e.What, verb, e.Reason, fix)
	}
	return fmt.Sprintf("%s %s: neither you nor a task of this turn gave that URL — type it in your request to allow it", e.What, verb)
}

// Unwrap makes errors.Is(err, ErrDenied) hold.
func (e *DeniedError) Unwrap() error { return ErrDenied }

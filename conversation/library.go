package conversation

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/chorusai/chorus/sessions"
)

// Library is the saved sessions of one directory, without an engine: what
// the TUI's /sessions and /load, and `chorus sessions`, list, find, open,
// export and remove. Every Service has one; the command line makes one
// alone (NewLibrary) where no turn runs. It is safe for concurrent use.
type Library struct {
	store sessions.Store
}

// NewLibrary returns the library of dir (config.Env.SessionsDir for the
// user's own), logging loads to log (nil discards).
func NewLibrary(dir string, log *slog.Logger) Library {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return Library{store: sessions.Store{Dir: dir, Logger: log}}
}

// Dir is the sessions directory, for messages that name it.
func (l *Library) Dir() string { return l.store.Dir }

// List summarises every saved session, newest first (damaged ones too,
// with why).
func (l *Library) List() ([]Summary, error) { return l.store.List() }

// Delete removes a saved session's file; the files its turns made stay.
func (l *Library) Delete(id string) error { return l.store.Delete(id) }

// Open loads the session id, or the newest one for "latest" (or "last").
// A session that does not exist gives an error wrapping ErrNotFound that
// names the sessions directory.
func (l *Library) Open(id string) (*Session, error) {
	ss, err := l.store.Open(id)
	if err != nil {
		return nil, err
	}
	return l.wrap(ss), nil
}

func (l *Library) wrap(ss *sessions.Session) *Session {
	return &Session{store: l.store, s: ss}
}

// AmbiguousError is what Find returns when what the user typed names
// several sessions: the command line exits 2 listing them, the TUI says so.
type AmbiguousError struct {
	// Arg is what the user typed; Matches the sessions it names, newest
	// first.
	Arg     string
	Matches []Summary
}

func (e *AmbiguousError) Error() string {
	var names []string
	for _, x := range e.Matches[:min(len(e.Matches), 4)] {
		names = append(names, fmt.Sprintf("%q (%s)", x.Title, x.ID))
	}
	more := ""
	if len(e.Matches) > 4 {
		more = fmt.Sprintf(" and %d more", len(e.Matches)-4)
	}
	return fmt.Sprintf("%d sessions match %q: %s%s — give more of the title, or the id", len(e.Matches), e.Arg, strings.Join(names, ", "), more)
}

// Find resolves what a user typed to name a session: an id or "latest"
// as it is, else a title — the newest session of that title (any case),
// or the one session whose id or title starts with, then whose title
// contains, what was typed. Several matches are an *AmbiguousError (the
// front end decides: take the newest, or ask); none is an error wrapping
// ErrNotFound that names what was typed and the sessions directory.
func (l *Library) Find(arg string) (string, error) {
	if sessions.IsLatest(arg) {
		return arg, nil
	}
	list, err := l.store.List()
	if err != nil {
		return "", err
	}
	want := strings.ToLower(strings.TrimSpace(arg))
	if want == "" {
		return arg, nil
	}
	for _, x := range list {
		if x.ID == arg {
			return x.ID, nil
		}
	}
	for _, x := range list { // newest first
		if strings.ToLower(x.Title) == want {
			return x.ID, nil
		}
	}
	for _, match := range []func(x Summary) bool{
		func(x Summary) bool {
			return strings.HasPrefix(x.ID, want) || x.Title != "" && strings.HasPrefix(strings.ToLower(x.Title), want)
		},
		func(x Summary) bool { return x.Title != "" && strings.Contains(strings.ToLower(x.Title), want) },
	} {
		var found []Summary
		for _, x := range list {
			if match(x) {
				found = append(found, x)
			}
		}
		switch {
		case len(found) == 1:
			return found[0].ID, nil
		case len(found) > 1:
			return "", &AmbiguousError{Arg: arg, Matches: found}
		}
	}
	return "", fmt.Errorf("no saved session's id or title starts with %q, nor does a title contain it, in %s: %w", arg, l.store.Dir, ErrNotFound)
}

// ExportName is the file a session's transcript goes to when the user
// names none: chorus-<id>.md.
func ExportName(id string) string { return "chorus-" + id + ".md" }

// WriteExport writes the session's Markdown transcript (Export) to path,
// creating its folder; an error names the path.
func (s *Session) WriteExport(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(s.Export()), 0o644)
}

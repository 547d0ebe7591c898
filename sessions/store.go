package sessions

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

var (
	// ErrNotFound is returned (wrapped) for a session that does not exist.
	ErrNotFound = errors.New("session not found")
	// ErrDamaged is returned (wrapped) for a session file that cannot be read.
	ErrDamaged = errors.New("session file is damaged")
	// ErrTooLarge is returned (wrapped) for a session file over the size
	// a load accepts: one an earlier version saved with big results whole.
	ErrTooLarge = errors.New("session file is too large to load")
)

// maxFileBytes bounds a session file: a load reads no more, and a save
// trims the oldest results to stay under it (trim.go).
const maxFileBytes = 256 << 20

// Store keeps sessions as files named <id>.json in Dir. A Store holds no
// state, so copies and concurrent use are fine.
type Store struct {
	// Dir is the sessions directory (config.Env.SessionsDir for the
	// user's own sessions); required.
	Dir string
	// Logger records saves and loads (id, turns, size — never what was
	// said); nil logs nothing.
	Logger *slog.Logger
	// Now is the clock new sessions and saves are stamped with; nil is
	// time.Now. A test sets a fake one to order saves without sleeping.
	Now func() time.Time

	// maxBytes is the bound of a session file, 0 for maxFileBytes: a test
	// sets less rather than write hundreds of megabytes.
	maxBytes int
	// rename is os.Rename (nil) or, in a test, a crash before it.
	rename func(from, to string) error
}

// limit is the bound of st's session files.
func (st Store) limit() int { return cmp.Or(st.maxBytes, maxFileBytes) }

// now reads st's clock.
func (st Store) now() time.Time {
	if st.Now == nil {
		return time.Now()
	}
	return st.Now()
}

// logger is st.Logger, or one that discards.
func (st Store) logger() *slog.Logger {
	if st.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return st.Logger
}

func (st Store) dir() string { return st.Dir }

func (st Store) path(id string) string { return filepath.Join(st.dir(), id+".json") }

// Summary describes a saved session for a session list.
type Summary struct {
	ID      string
	Title   string
	Updated time.Time
	// Turns is the number of turns.
	Turns int
	Model string
	// Text is what was said in the session, for a search: each turn's
	// request and the start of its answer, at most MaxSearchText bytes.
	Text string
	// Damaged is why the file cannot be read, empty for a good one. A
	// damaged session is listed (with its file's modification time) so the
	// user learns of it, but Load refuses it.
	Damaged string
}

// New returns a new, unsaved session titled title (which may be empty: the
// first turn then names it).
func (st Store) New(title string) *Session {
	now := st.now()
	return &Session{Version: Version, ID: newID(now), Title: TitleFrom(title), Created: now, Updated: now}
}

// Save writes s to <Dir>/<id>.json atomically, merged with what other
// writers saved meanwhile (Merge): no turn on disk is ever lost. The JSON
// goes to a temporary file in the same directory (mode 0600), is synced to
// disk, and replaces the old file by rename, so a crash at any point
// leaves either the old or the new version, never a mix. The directory is
// created with mode 0700. The file records the save time as Updated and
// the current schema Version; s itself is not modified, so concurrent
// Saves are safe.
func (st Store) Save(s *Session) error {
	_, err := st.Merge(s)
	return err
}

// write writes s as it is (the caller holds the directory's lock) and
// returns what was written.
func (st Store) write(s *Session) (*Session, error) {
	c := *s
	c.Version = Version
	c.Updated = st.now()
	c.Title = s.title()
	if c.Created.IsZero() {
		c.Created = c.Updated
	}
	if c.Turns == nil {
		c.Turns = []Record{}
	}
	c.Turns = slices.Clone(c.Turns) // a trim replaces turns, never s's
	data, err := fitFile(&c, st.limit())
	if err != nil {
		return nil, err
	}
	dir := st.dir()
	sweepStray(dir)
	rename := st.rename
	if rename == nil {
		rename = os.Rename
	}
	if err := writeAtomic(dir, s.ID, data, rename); err != nil {
		return nil, fmt.Errorf("cannot save session %s in %s: %w", s.ID, dir, err)
	}
	st.logger().Info("session saved", "id", s.ID, "turns", len(c.Turns), "bytes", len(data), "dir", dir)
	return &c, nil
}

// tempPrefix starts the name of every temporary file, which makes them
// hidden and keeps them out of List.
const tempPrefix = "."

// writeAtomic writes data to dir/<id>.json through a synced temporary file
// and rename, then syncs the directory so the rename itself is durable.
func writeAtomic(dir, id string, data []byte, rename func(from, to string) error) (err error) {
	// The writer's pid is in the name, so a later save can tell a file a
	// killed process left behind from one being written now.
	f, err := os.CreateTemp(dir, fmt.Sprintf("%s%s.%d.*.tmp", tempPrefix, id, os.Getpid()))
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = rename(tmp, filepath.Join(dir, id+".json")); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
	return nil
}

// Load reads the session id. A missing session gives an error wrapping
// ErrNotFound; an unreadable one an error wrapping ErrDamaged that says the
// file was left untouched. Fields this version does not know are ignored.
func (st Store) Load(id string) (*Session, error) {
	s, err := st.load(id)
	if err != nil {
		st.logger().Warn("session not loaded", "err", err.Error())
	}
	return s, err
}

func (st Store) load(id string) (*Session, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%q is not a session id: %w (/sessions in the chat lists the saved ones)", id, ErrNotFound)
	}
	data, err := st.read(id)
	if err != nil {
		return nil, err
	}
	s, reason := decode(data)
	if reason != "" {
		return nil, fmt.Errorf("session %s is damaged (%s); it was left untouched at %s: %w", id, reason, st.path(id), ErrDamaged)
	}
	s.ID = id // the file name is the identity; a copied file takes its new name
	st.logger().Info("session loaded", "id", id, "turns", len(s.Turns), "bytes", len(data))
	return s, nil
}

// read returns the bytes of id's file.
func (st Store) read(id string) ([]byte, error) {
	p := st.path(id)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("session %s: %w in %s (/sessions in the chat lists the saved ones)", id, ErrNotFound, st.dir())
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read session %s: %w", id, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(st.limit()) {
		return nil, fmt.Errorf("session %s is %s, more than the %s Chorus loads (an earlier version saved big results whole; saves now trim them), so it was not opened; "+
			"it was left untouched at %s — start a new session, and move the file out of %s if it should not count as the newest: %w",
			id, skills.HumanBytes(fi.Size()), skills.HumanBytes(int64(st.limit())), p, st.dir(), ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(st.limit())))
	if err != nil {
		return nil, fmt.Errorf("cannot read session %s: %w", id, err)
	}
	return data, nil
}

// decode parses a session file; reason says what is wrong with a bad one.
func decode(data []byte) (*Session, string) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, "the file is empty"
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)
		}
		return nil, err.Error()
	}
	if s.Version == 0 && s.ID == "" && s.Turns == nil && s.Created.IsZero() {
		return nil, "not a session file"
	}
	s.ensureIDs()
	return &s, ""
}

// List returns a summary of every session, newest first. A damaged file is
// listed with Damaged set and does not hide the others; temporary files of
// interrupted saves are ignored. A missing directory is an empty list.
func (st Store) List() ([]Summary, error) {
	dir := st.dir()
	sweepStray(dir) // what killed saves left: the listing is the app's first look
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list sessions in %s: %w", dir, err)
	}
	var out []Summary
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validID(id) || !e.Type().IsRegular() {
			continue
		}
		out = append(out, st.summary(id, e))
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out, nil
}

// summaryFile is the part of a session file a summary needs; the turns are
// only counted, not decoded.
type summaryFile struct {
	Version int           `json:"version"`
	ID      string        `json:"id"`
	Title   string        `json:"title"`
	Created time.Time     `json:"created"`
	Updated time.Time     `json:"updated"`
	Model   string        `json:"model"`
	Turns   []summaryTurn `json:"turns"`
}

// summaryTurn is what a search reads of a turn.
type summaryTurn struct {
	Request string `json:"request"`
	Answer  string `json:"answer"`
}

// MaxSearchText bounds Summary.Text; maxAnswerText bounds each answer's
// part of it, so the requests of a long session all fit.
const (
	MaxSearchText = 64 << 10
	maxAnswerText = 2 << 10
)

// searchText is the turns' requests and the start of their answers.
func searchText(turns []summaryTurn) string {
	var b strings.Builder
	for _, t := range turns {
		ans, _ := text.ClipBytes(t.Answer, maxAnswerText)
		for _, part := range []string{t.Request, ans} {
			if part == "" || b.Len() >= MaxSearchText {
				continue
			}
			part, _ = text.ClipBytes(part, MaxSearchText-b.Len()-8) // room for the ellipsis
			b.WriteString(part)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (st Store) summary(id string, e fs.DirEntry) Summary {
	sum := Summary{ID: id}
	if fi, err := e.Info(); err == nil {
		sum.Updated = fi.ModTime()
	}
	data, err := st.read(id)
	if err != nil {
		sum.Damaged = err.Error()
		return sum
	}
	var f summaryFile
	if err := json.Unmarshal(data, &f); err != nil {
		_, reason := decode(data)
		sum.Damaged = cmp.Or(reason, err.Error())
		return sum
	}
	if f.Version == 0 && f.ID == "" && f.Turns == nil && f.Created.IsZero() {
		sum.Damaged = "not a session file"
		return sum
	}
	sum.Title, sum.Model, sum.Turns, sum.Text = f.Title, f.Model, len(f.Turns), searchText(f.Turns)
	if !f.Updated.IsZero() {
		sum.Updated = f.Updated
	}
	return sum
}

// Latest loads the most recently saved session. With none, the error wraps
// ErrNotFound; when the newest cannot be loaded (damaged, too large) the
// error says so, wrapping Load's: continuing an older session, or a new
// one, in its place would hide that the conversation asked for is not there.
func (st Store) Latest() (*Session, error) {
	list, err := st.List()
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no saved session in %s: %w", st.dir(), ErrNotFound)
	}
	sess, err := st.Load(list[0].ID)
	if err != nil {
		return nil, fmt.Errorf("the newest session cannot be loaded: %w", err)
	}
	return sess, nil
}

// IsLatest reports whether id asks for the newest session rather than
// naming one: "latest", or "last" as people also say.
func IsLatest(id string) bool { return id == "latest" || id == "last" }

// Open loads the session id, or the newest one when IsLatest(id). Errors
// are Load's and Latest's.
func (st Store) Open(id string) (*Session, error) {
	if IsLatest(id) {
		return st.Latest()
	}
	return st.Load(id)
}

// Delete removes the session id, and any temporary files an interrupted
// save of it left behind.
func (st Store) Delete(id string) error {
	if !validID(id) {
		return fmt.Errorf("%q is not a session id: %w", id, ErrNotFound)
	}
	err := os.Remove(st.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s: %w in %s", id, ErrNotFound, st.dir())
	}
	if err != nil {
		return fmt.Errorf("cannot delete session %s: %w", id, err)
	}
	if stray, _ := filepath.Glob(filepath.Join(st.dir(), tempPrefix+id+".*.tmp")); len(stray) > 0 {
		for _, p := range stray {
			os.Remove(p)
		}
	}
	return nil
}

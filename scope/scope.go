package scope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/chorusai/chorus/httpwire"
)

// Origin says why a file or URL is allowed; it shows in debug output and
// tests, never as a reason to read more.
type Origin string

// The origins of a grant.
const (
	Attached Origin = "attached"    // --attach, @file, paste
	Typed    Origin = "typed"       // in the user's own request text
	ChatLog  Origin = "chat log"    // an earlier turn's attachment or output
	Output   Origin = "output"      // written by Chorus in its output directory
	Result   Origin = "task result" // a URL a task that ran returned
)

// Scope is what one turn may read. Its methods are safe for concurrent
// use: tasks run in parallel and each adds its results.
type Scope struct {
	home, wd string
	// root, when set, bounds every grant (Options.Root); given is the
	// folder as it was named, before its links were followed.
	root, given string
	// outputs is Options.Outputs, resolved; processDir and processHome
	// are Chorus's working folder and the HOME its tools inherit.
	outputs, processDir, processHome string
	lookupIP                         func(ctx context.Context, network, host string) ([]netip.Addr, error)

	mu    sync.RWMutex
	files map[string]Origin // resolved path → why
	dirs  map[string]Origin // resolved directory → why
	// folders are the folders the user gave (AllowFolder): the folder and
	// what lies under it, but its hidden entries.
	folders map[string]Origin
	urls    map[string]Origin // normalised URL → why
	// resolved are the host names looked up for tool URLs (toolurls.go).
	resolved map[string][]netip.Addr
}

// Options are where paths are resolved from.
type Options struct {
	// Home expands "~"; empty means the user's home directory.
	Home string
	// WorkDir resolves relative paths; empty means the process's.
	WorkDir string
	// Root, when set, confines the scope to one directory: nothing
	// outside it is allowed, whatever was granted — the workspace of a
	// user who is not on this machine (chorus serve --ssh), who may not
	// read its other files by typing their paths. Home and WorkDir default
	// to it.
	Root string
	// Outputs is the folder Chorus writes the turn's files in: a tool may
	// create a file there (and in a folder the user gave), nowhere else.
	Outputs string
	// ProcessDir is Chorus's own working folder, and ProcessHome the HOME
	// the tools it starts inherit: empty means the process's (os.Getwd;
	// $HOME, or with none the account's). A tool may resolve a relative
	// path from either, so the gate judges it there too. The engine passes
	// its own (pipeline.Options.Home and WorkDir), so a scope it builds
	// reads nothing of the process.
	ProcessDir, ProcessHome string
	// Lookup resolves a host name of a URL handed to a tool (nil: the
	// system's resolver).
	Lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// New returns an empty scope: it allows nothing until told.
func New(o Options) *Scope {
	root, given := "", ""
	if o.Root != "" {
		root = filepath.Clean(o.Root)
		given = root
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		if o.Home == "" {
			o.Home = root
		}
		if o.WorkDir == "" {
			o.WorkDir = root
		}
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.WorkDir == "" {
		o.WorkDir, _ = os.Getwd()
	}
	if o.ProcessDir == "" {
		o.ProcessDir, _ = os.Getwd()
	}
	if o.ProcessHome == "" {
		o.ProcessHome = processHome(os.Getenv)
	}
	s := &Scope{home: o.Home, wd: o.WorkDir, root: root, given: given, processDir: o.ProcessDir, processHome: o.ProcessHome, lookupIP: o.Lookup,
		files: map[string]Origin{}, dirs: map[string]Origin{}, folders: map[string]Origin{}, urls: map[string]Origin{}}
	if o.Outputs != "" {
		if out, err := s.resolveFuture(o.Outputs); err == nil {
			s.outputs = out
		}
	}
	return s
}

// processHome is the home a tool started by this process expands "~" to:
// $HOME (getenv's), which it inherits — or, with none, the account's.
func processHome(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if u, err := user.Current(); err == nil {
		return u.HomeDir
	}
	return ""
}

// Roots are the folders a tool of the turn may be told to keep to (MCP
// roots): the folders the user gave, the folder of each file they gave
// (a root is a folder, so a single file's grant is still the gate's to
// judge), and the outputs folder — never the file system's root. They
// are real paths, sorted.
func (s *Scope) Roots() []string {
	set := map[string]bool{}
	if s.outputs != "" {
		set[s.outputs] = true
	}
	s.mu.RLock()
	for d := range s.folders {
		set[d] = true
	}
	for d := range s.dirs {
		set[d] = true
	}
	for f := range s.files {
		set[filepath.Dir(f)] = true
	}
	s.mu.RUnlock()
	out := make([]string, 0, len(set))
	for d := range set {
		if filepath.Dir(d) != d && (s.root == "" || within(d, s.root)) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// Outputs is the outputs folder (Options.Outputs), resolved; "" when
// none was given.
func (s *Scope) Outputs() string { return s.outputs }

// AllowFile lets the turn read the file at path. The path is resolved
// first, so what is allowed is the real file, not the name: a link the
// user gave is followed once, here, and nothing else it points to later
// is.
func (s *Scope) AllowFile(path string, why Origin) {
	real, err := s.resolve(path)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.files[real] = why
	s.mu.Unlock()
}

// AllowDir lets the turn read any file under dir (Chorus's output
// directory). The directory need not exist yet: its existing part is
// resolved, so what is created under it later is covered.
func (s *Scope) AllowDir(dir string, why Origin) {
	real, err := s.resolveFuture(dir)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.dirs[real] = why
	s.mu.Unlock()
}

// AllowFileUnder grants the file at path as AllowFile does, but only when
// its real path — links followed — lies under dir's: a path read from a
// session file that names a file elsewhere, or a link planted in dir that
// leads out of it, grants nothing. It reports whether it granted.
func (s *Scope) AllowFileUnder(path, dir string, why Origin) bool {
	real, err := s.resolve(path)
	if err != nil {
		return false
	}
	d, err := s.resolve(dir)
	if err != nil || real == d || !within(real, d) {
		return false
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return false
	}
	s.mu.Lock()
	s.files[real] = why
	s.mu.Unlock()
	return true
}

// ErrBroadFolder is what AllowFolder refuses: a folder that would grant the
// whole file system.
var ErrBroadFolder = errors.New("the file system's root is never granted as a folder — name the folder you mean")

// AllowFolder lets the turn read the folder at dir — list it — and every
// file and folder under it but the hidden ones (a name starting with "."
// below dir, as .ssh, .env or .git): a folder the user attached or typed
// is a grant for the paths inside it that a tool takes (docs/mcp.md). Its
// links are followed once, here; a link inside it that leads out of it is
// not granted, since what is allowed is judged by the real path. It fails
// when dir is not a directory, or is the file system's root
// (ErrBroadFolder).
func (s *Scope) AllowFolder(dir string, why Origin) error {
	real, err := s.resolve(dir)
	if err != nil {
		return err
	}
	st, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &fs.PathError{Op: "grant", Path: dir, Err: errors.New("not a folder")}
	}
	if filepath.Dir(real) == real {
		return fmt.Errorf("%s: %w", dir, ErrBroadFolder)
	}
	s.mu.Lock()
	s.folders[real] = why
	s.mu.Unlock()
	return nil
}

// Allow grants path as what it is: a folder (AllowFolder) or a file
// (AllowFile). It is how a turn grants the user's attachments, which may be
// either.
func (s *Scope) Allow(path string, why Origin) error {
	real, err := s.resolve(path)
	if err != nil {
		return err
	}
	if st, err := os.Stat(real); err == nil && st.IsDir() {
		return s.AllowFolder(path, why)
	}
	s.AllowFile(path, why)
	return nil
}

// File is a path that passed the rule: the only thing that can be opened
// on a turn's behalf. Its zero value opens nothing.
type File struct {
	// asked is the path as the plan or user wrote it, for messages.
	asked string
	// real is the resolved path.
	real string
}

// Path returns the resolved path.
func (f File) Path() string { return f.real }

// Asked returns the path as it was asked for.
func (f File) Asked() string { return f.asked }

// IsZero reports whether f is the zero File.
func (f File) IsZero() bool { return f.real == "" }

// Check resolves path and says whether the turn may read it: a File to
// open when it may, a *DeniedError when it may not. A missing file is
// reported as such (fs.ErrNotExist), whether or not it would be allowed,
// so a refusal never says that a file exists.
func (s *Scope) Check(path string) (File, error) {
	real, err := s.resolve(path)
	if err != nil {
		return File{}, err
	}
	if !s.allowed(real) {
		de := &DeniedError{What: path, Resolved: real}
		if s.root != "" && !within(real, s.root) {
			de.Root = s.root // a link out of the folder
		}
		return File{}, de
	}
	return File{asked: path, real: real}, nil
}

// Allowed reports whether path may be read, without an error to explain.
func (s *Scope) Allowed(path string) bool {
	_, err := s.Check(path)
	return err == nil
}

func (s *Scope) allowed(real string) bool {
	if s.root != "" && !within(real, s.root) {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.files[real]; ok {
		return true
	}
	for dir := range s.dirs {
		if within(real, dir) {
			return true
		}
	}
	for dir := range s.folders {
		if within(real, dir) && !hiddenBelow(real, dir) {
			return true
		}
	}
	return false
}

// hiddenBelow reports whether a name of path below dir starts with ".":
// a folder's grant leaves out its hidden entries, where keys, tokens and
// repositories live, unless the user names them.
func hiddenBelow(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." {
		return false
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies under it; both are clean
// absolute paths.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}

// resolve turns a path as a person or a model writes it into the real
// path of an existing file: "~" expanded, relative paths taken from the
// working directory, "." and ".." removed, and every symbolic link
// followed.
func (s *Scope) resolve(path string) (string, error) {
	if _, err := s.absolute(path); err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(s.joined(path))
	if errors.Is(err, fs.ErrNotExist) {
		// A name not there as written may be there NFC (nfc.go).
		if p, aerr := s.absolute(path); aerr == nil {
			if r, nerr := nfcResolve(p, nil); nerr == nil {
				real, err = r, nil
			}
		}
	}
	if err != nil {
		return "", err
	}
	return real, nil
}

// joined is path as the kernel would open it: "~" expanded, relative to
// the working directory, but not cleaned — "link/../x" is x beside the
// folder link leads to, not beside link, and a lexical clean would judge
// the wrong file. (absolute judges the name; this is what is looked up.)
func (s *Scope) joined(path string) string {
	p := strings.TrimSpace(path)
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = s.home + "/" + p[1:]
	}
	if !filepath.IsAbs(p) {
		p = s.wd + "/" + p
	}
	return p
}

// Outside returns a *DeniedError naming the folder when the scope is
// confined (Options.Root) and path lies outside it, judged by its name
// alone: nothing on the file system is looked at, so the answer is the
// same whether such a file exists. It is nil otherwise — which says
// nothing of whether the path may be read (Check does).
func (s *Scope) Outside(path string) error {
	if s.root == "" {
		return nil
	}
	_, err := s.absolute(path)
	var de *DeniedError
	if errors.As(err, &de) {
		return de
	}
	return nil
}

// Abs is path as the scope reads it — "~" expanded from its home,
// relative to its working folder (Options.Home and WorkDir), cleaned —
// before any link is followed, for a caller that looks a path up itself:
// never from the process's folder or HOME. A path outside a confined
// scope's folder is a *DeniedError, as Outside says. It says nothing of
// whether the path may be read (Check does).
func (s *Scope) Abs(path string) (string, error) { return s.absolute(path) }

// absolute is path as resolve reads it — "~" expanded, relative to the
// working directory, cleaned — before any link is followed; a path outside
// a confined scope's folder is refused here, before the file system is
// looked at.
func (s *Scope) absolute(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	if strings.ContainsRune(p, 0) {
		return "", &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if s.home == "" {
			return "", &fs.PathError{Op: "open", Path: path, Err: errors.New("no home directory to expand ~")}
		}
		p = filepath.Join(s.home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.wd, p)
	}
	p = filepath.Clean(p)
	if s.root != "" && !within(p, s.root) && !within(p, s.given) {
		// Outside the folder: refused before anything looks at the file
		// system, so the answer is the same whether such a file exists.
		return "", &DeniedError{What: path, Root: s.root}
	}
	return p, nil
}

// resolveFuture resolves a path that may not exist yet: its deepest
// existing ancestor is resolved (links followed) and the rest appended.
func (s *Scope) resolveFuture(path string) (string, error) {
	real, err := s.resolve(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	p := strings.TrimSpace(path)
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(s.home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.wd, p)
	}
	p = filepath.Clean(p)
	var rest []string
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			slices.Reverse(rest)
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if filepath.Dir(dir) == dir {
			return "", err
		}
		rest = append(rest, filepath.Base(dir))
	}
}

// Open opens a checked file for reading. It refuses anything but a regular
// file: a FIFO would block and a device might never end. The file is
// opened without blocking and judged by what was opened, so a FIFO put in
// the file's place after the check cannot hang the caller either.
func (f File) Open() (*os.File, error) {
	if f.real == "" {
		return nil, &fs.PathError{Op: "open", Path: "", Err: fs.ErrInvalid}
	}
	// O_NONBLOCK only matters for a FIFO (open would wait for a writer);
	// reads of a regular file ignore it.
	fh, err := os.OpenFile(f.real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, fmt.Errorf("%s is not a regular file (a directory, pipe or device) — give a file", f.asked)
	}
	return fh, nil
}

// ErrTooLarge is wrapped when a file or a download is over its limit. It
// is httpwire's, so a body refused anywhere is found by one errors.Is.
var ErrTooLarge = httpwire.ErrTooLarge

// ReadAll reads a checked file of at most limit bytes; a larger one is
// refused without being read into memory.
func (f File) ReadAll(limit int64) ([]byte, error) {
	fh, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit: %w", f.asked, st.Size(), limit, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s grew over the %d-byte limit while it was read: %w", f.asked, limit, ErrTooLarge)
	}
	return b, nil
}

// Files lists the allowed files, sorted: for debug output and tests.
func (s *Scope) Files() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.files))
	for p := range s.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

package scope

import (
	"encoding/json"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Gate is the one check every argument value passes on its way to a tool
// of any kind — a built-in, a program, a local or remote server, an MCP
// tool, the controller — after the pipeline resolved it (a <resource>-N
// became another task's output, a default was filled in). A value is text
// a tool may read as a path, so Gate finds every path the value could name
// and refuses it unless the turn may read each one, by Check's rule:
//
//   - the whole value, and the whole of each string inside a JSON value;
//   - every word of a sentence, quoted or with escaped blanks, split again
//     at the punctuation that joins a path to other words (key=/path,
//     (path), path:12, "path", a NUL byte);
//   - file: URLs (file:///p, file://localhost/p, file:/p), percent-encoded
//     forms (%2Fetc%2Fpasswd, %2e%2e), "\/" escapes, ~, ~user and $HOME,
//     decoded again and again;
//   - relative paths from the working directory, ".." and symbolic links
//     resolved, so a link out of a granted folder does not pass.
//
// Inside a sentence a word counts when it names a regular file, or a
// folder written as a path (with a "/"; "/", "../" alone are punctuation); the
// whole value counts whatever it names. In a scope confined to a folder
// (Options.Root) a path outside it is refused by its name alone, before
// anything is looked at. http(s) URLs are not paths: CheckURL judges
// those when they are fetched.
//
// A refusal is a *DeniedError naming the path as the value wrote it and
// the fix; nothing is opened, so no byte of the file is read.
func (s *Scope) Gate(value string) error {
	g := gate{s: s, words: map[string]bool{}, wholes: map[string]bool{}, whole: map[string]bool{}, values: map[string]bool{}}
	return g.value(value, true, 0)
}

// gate is one Gate call. Its sets keep each candidate (words, wholes) and
// each value (whole, values) to one look; they stop growing at maxSeen
// entries (a value of millions of distinct words then costs a look per
// word, not memory per word).
type gate struct {
	s                            *Scope
	words, wholes, whole, values map[string]bool
}

// maxSeen bounds each of a gate's sets.
const maxSeen = 1 << 16

// once reports whether k is new to set, and notes it while there is room.
func once(set map[string]bool, k string) bool {
	if set[k] {
		return false
	}
	if len(set) < maxSeen {
		set[k] = true
	}
	return true
}

// maxDecode bounds how many decodings deep (percent-encoding of
// percent-encoding, a path in a file URL in a JSON string) Gate follows.
const maxDecode = 8

// maxPath is the longest candidate looked at: PATH_MAX.
const maxPath = 4096

var (
	// httpURL ends at the punctuation that joins a path to other text
	// (isJoiner but ':' and '?'), so "http://x,/home/u/key" still
	// shows its second part as a word.
	httpURL = regexp.MustCompile(`(?i)\bhttps?://[^\s<>"'` + "`" + `,;=|&()\[\]{}*!#]+`)
	fileURL = regexp.MustCompile(`(?i)file:[^\s<>"'` + "`" + `]*`)
)

// value checks v: as a whole value when whole, then each of its words
// and what decoding them gives, then what decoding v gives.
func (g *gate) value(v string, whole bool, depth int) error {
	set := g.values
	if whole {
		set = g.whole
	}
	if len(v) <= maxPath && !once(set, v) {
		return nil // a long value is seldom met twice: no copy of it is kept
	}
	if whole {
		t := strings.TrimSpace(v)
		if err := g.check(t, true); err != nil {
			return err
		}
		// What a C program reads stops at a NUL: that part is a value of
		// its own, a JSON string or an encoding in it decoded as any.
		if c := cutNUL(t); c != t && depth < maxDecode {
			if err := g.value(c, true, depth+1); err != nil {
				return err
			}
		}
	}
	err := eachWord(v, func(w string) error {
		if err := g.check(w, false); err != nil {
			return err
		}
		if depth < maxDecode {
			for _, d := range decodings(w) {
				if err := g.value(d, false, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil || depth >= maxDecode {
		return err
	}
	// Every string inside a JSON value is a value of its own: a tool's
	// array or object argument hands each to the tool whole.
	if err := eachJSONString(v, func(s string) error { return g.value(s, true, depth+1) }); err != nil {
		return err
	}
	for _, d := range decodings(v) {
		if err := g.value(d, whole, depth+1); err != nil {
			return err
		}
	}
	var urls []string
	if hasFileScheme(v) {
		urls = fileURL.FindAllString(v, -1)
	}
	if t := strings.TrimSpace(v); whole && len(t) >= 5 && strings.EqualFold(t[:5], "file:") {
		// The whole value is a URL, blanks and all: a tool converts all of
		// it to a path.
		urls = append(urls, t)
	}
	for _, m := range urls {
		for _, p := range fileURLPaths(m) {
			if err := g.value(p, whole && strings.TrimSpace(v) == m, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// check looks at one candidate: whole says it is the entire value a tool
// receives (then a folder, a device or anything else it names counts).
func (g *gate) check(c string, whole bool) error {
	c = strings.TrimSpace(c)
	if c == "" || len(c) > maxPath {
		return nil
	}
	if g.wholes[c] || !whole && g.words[c] {
		return nil
	}
	if whole {
		once(g.wholes, c)
	} else {
		once(g.words, c)
	}
	if !whole && strings.Trim(c, "/.~") == "" {
		// "/", "..", "./" in a sentence: punctuation, not a file.
		return nil
	}
	for _, p := range g.expand(c, whole) {
		if err := g.path(c, p, whole); err != nil {
			return err
		}
	}
	return nil
}

// expand returns the ways a tool might read c as a path: as written, and
// with ~user or $HOME expanded (a program run through a shell would). "~"
// as written is the scope's home (over ssh, the user's folder); a tool
// expands it to its own — the server's $HOME, as a shell and the MCP
// filesystem server (os.homedir) do — so that reading is judged too.
func (g *gate) expand(c string, whole bool) []string {
	out := []string{c}
	if c == "~" || strings.HasPrefix(c, "~/") {
		for _, home := range toolHomes() {
			if home != g.s.home {
				out = append(out, home+c[1:])
			}
		}
	}
	if strings.Contains(c, "$HOME") || strings.Contains(c, "${HOME}") {
		for _, home := range []string{os.Getenv("HOME"), g.s.home} {
			if home != "" {
				out = append(out, strings.NewReplacer("${HOME}", home, "$HOME", home).Replace(c))
			}
		}
	}
	if name, rest, ok := tildeUser(c); ok && (whole || strings.Contains(c, "/")) {
		if u, err := user.Lookup(name); err == nil && u.HomeDir != "" {
			out = append(out, filepath.Join(u.HomeDir, rest))
		} else if g.s.root != "" {
			// Another account's home on the server, or not: judged by the
			// name alone, so the answer says nothing of who exists there.
			out = append(out, "/~"+name+"/"+rest)
		}
	}
	return out
}

// toolHomes are the homes a tool started by this process expands "~" to:
// $HOME, which it inherits — or, with none, the account's.
func toolHomes() []string {
	if h := os.Getenv("HOME"); h != "" {
		return []string{h}
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return []string{u.HomeDir}
	}
	return nil
}

// path checks one reading p of the candidate c.
func (g *gate) path(c, p string, whole bool) error {
	if strings.HasPrefix(c, "//") {
		c = filepath.Clean(c) // what is left of file:///p, named as the path
	}
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i] // a C program stops at the NUL
	}
	if strings.TrimSpace(p) == "" {
		return nil
	}
	_, err := g.s.absolute(p)
	var de *DeniedError
	if errors.As(err, &de) {
		de.What = c
		return de
	}
	if err != nil {
		return nil
	}
	raw := g.s.joined(p)
	if _, err := os.Lstat(raw); err != nil {
		return nil // nothing there to read (one look, for the many words that name nothing)
	}
	real, err := filepath.EvalSymlinks(raw)
	if err != nil {
		return nil
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil
	}
	if !whole && !st.Mode().IsRegular() && !(st.IsDir() && strings.Contains(p, "/")) {
		return nil
	}
	if g.s.allowed(real) {
		return nil
	}
	de = &DeniedError{What: c, Resolved: real}
	if g.s.root != "" && !within(real, g.s.root) {
		de.Root = g.s.root
	}
	return de
}

// eachWord calls fn with every word of v that could be a path, stopping at
// its first error: v without its http(s) URLs, split at any blank or
// control character (a NUL, an escape, a no-break space); then the quoted
// strings and the words with escaped blanks, which keep their blanks
// ("my file.txt", my\ file.txt) — each as pieces gives it. Words are
// slices of v where they can be: a long value costs no copy per word.
func eachWord(v string, fn func(string) error) error {
	if strings.Contains(v, "://") {
		v = httpURL.ReplaceAllString(v, " ")
	}
	for w := range strings.FieldsFuncSeq(v, isBlank) {
		if err := pieces(w, fn); err != nil {
			return err
		}
	}
	for q := range quotedWithBlanks(v) {
		if err := pieces(q, fn); err != nil {
			return err
		}
	}
	if strings.Contains(v, `\ `) {
		for _, w := range splitWords(blankControls(v)) {
			if strings.Contains(w, " ") {
				if err := pieces(w, fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// pieces calls fn with the word w, with w without the punctuation that
// ends a sentence or opens a bracket and without a leading "@", and with
// the parts of w between the punctuation that joins a path to other text
// (key=/path, (path), path:12).
func pieces(w string, fn func(string) error) error {
	if err := fn(w); err != nil {
		return err
	}
	if t := strings.TrimLeft(strings.TrimRight(w, ".,;:!?)]}>'\""), "([{<'\"@"); t != w && t != "" {
		if err := fn(t); err != nil {
			return err
		}
	}
	if !strings.ContainsFunc(w, isJoiner) {
		return nil
	}
	for p := range strings.FieldsFuncSeq(w, isJoiner) {
		if err := fn(p); err != nil {
			return err
		}
		if t := strings.TrimRight(p, ".!?"); t != p && t != "" {
			if err := fn(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// isBlank reports a blank or control character; invalid UTF-8 is neither
// (a file name may hold it).
func isBlank(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f
	}
	return r != utf8.RuneError && (unicode.IsSpace(r) || unicode.IsControl(r))
}

// quotedWithBlanks yields the strings between a pair of quotes (", ', `)
// that hold a blank, at most maxPath bytes long: the file names with blanks
// a sentence may quote. Every quote is tried as an opening one (an
// apostrophe may come first), each looking at most maxPath bytes ahead.
func quotedWithBlanks(v string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c != '"' && c != '\'' && c != '`' {
				continue
			}
			rest := v[i+1 : min(len(v), i+1+maxPath)]
			end := strings.IndexByte(rest, c)
			if end <= 0 || !strings.ContainsFunc(rest[:end], isBlank) {
				continue
			}
			if !yield(rest[:end]) {
				return
			}
		}
	}
}

// blankControls replaces every blank and control character of v (a NUL,
// an escape, a no-break space) by a space, keeping every other byte as it
// is — invalid UTF-8 too, which a file name may hold.
func blankControls(v string) string {
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRuneInString(v[i:])
		if isBlank(r) || v[i] == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(v[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isJoiner reports the punctuation that may join a path to other text.
func isJoiner(r rune) bool { return r < 128 && joiners[r] }

// joiners are isJoiner's characters, for a look without a search.
var joiners = func() (t [128]bool) {
	for _, c := range `,;:=|&<>()[]{}"'` + "`*?!#@" {
		t[c] = true
	}
	return t
}()

// decodings returns what v becomes when a tool decodes it: percent-
// encoding undone once, twice, … until nothing changes (leniently: a
// malformed escape stays as it is), and "\/" read as "/". Only forms that
// differ from v are returned.
func decodings(v string) []string {
	var out []string
	for d := v; hasEscape(d); {
		next := percentDecode(d)
		if next == d {
			break
		}
		out = append(out, next)
		d = next
	}
	if strings.Contains(v, `\/`) {
		out = append(out, strings.ReplaceAll(v, `\/`, "/"))
	}
	return out
}

// hasEscape reports whether s holds a valid %XX escape.
func hasEscape(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0 && i+2 < len(s); {
		if isHex(s[i+1]) && isHex(s[i+2]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// percentDecode replaces every valid %XX escape by its byte.
func percentDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// fileURLPaths returns the paths a file: URL may name: file:///p and
// file://localhost/p name /p; file://host/p is /p to some readers and
// host/p to others; file:/p and file:p are p; a query or fragment may be
// cut off or kept. The paths are still percent-encoded.
func fileURLPaths(u string) []string {
	rest := u[len("file:"):]
	var out []string
	if hostPath, ok := strings.CutPrefix(rest, "//"); ok {
		_, p, found := strings.Cut(hostPath, "/")
		if found {
			out = append(out, "/"+p)
		}
		out = append(out, hostPath)
	} else {
		out = append(out, rest)
	}
	for _, p := range out {
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			out = append(out, p[:i])
		}
	}
	return out
}

// tildeUser reads "~name" or "~name/rest" (a shell's other user's home).
func tildeUser(c string) (name, rest string, ok bool) {
	if !strings.HasPrefix(c, "~") || strings.HasPrefix(c, "~/") || c == "~" {
		return "", "", false
	}
	name, rest, _ = strings.Cut(c[1:], "/")
	if name == "" || !validUserName(name) {
		return "", "", false
	}
	return name, rest, true
}

// validUserName is the POSIX portable user name, as useradd takes it.
func validUserName(n string) bool {
	for i, r := range n {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && (r == '-' || r == '.' || '0' <= r && r <= '9'):
		default:
			return false
		}
	}
	return len(n) <= 32
}

// eachJSONString calls fn with every string inside v when v is a JSON
// value (an object's keys and values, an array's items, a string itself),
// read token by token: a long JSON value is never held as a tree.
func eachJSONString(v string, fn func(string) error) error {
	t := strings.TrimSpace(v)
	if t == "" || !strings.ContainsAny(t[:1], `[{"`) || !json.Valid([]byte(t)) {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(t))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // its end: the value is valid, nothing else can fail
		}
		if s, ok := tok.(string); ok {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
}

// hasFileScheme reports whether s holds "file:" in any case.
func hasFileScheme(s string) bool {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], ':')
		if i < 0 {
			return false
		}
		i += off
		if i >= 4 && strings.EqualFold(s[i-4:i], "file") {
			return true
		}
		off = i + 1
	}
}

// cutNUL is s up to its first NUL byte.
func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

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
	g := gate{s: s, seen: map[string]bool{}}
	return g.value(value, true, 0)
}

// gate is one Gate call: seen keeps each candidate to one look.
type gate struct {
	s    *Scope
	seen map[string]bool
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

// value checks v: as a whole value when whole, then each of its words,
// then what decoding it (and them) gives.
func (g *gate) value(v string, whole bool, depth int) error {
	key := "v\x00" + v
	if whole {
		key = "w\x00" + v
	}
	if g.seen[key] {
		return nil
	}
	g.seen[key] = true
	if whole {
		t := strings.TrimSpace(v)
		for _, c := range []string{t, cutNUL(t)} {
			if err := g.check(c, true); err != nil {
				return err
			}
		}
	}
	words := wordsOf(v)
	for _, w := range words {
		if err := g.check(w, false); err != nil {
			return err
		}
	}
	if depth >= maxDecode {
		return nil
	}
	// Every string inside a JSON value is a value of its own: a tool's
	// array or object argument hands each to the tool whole.
	for _, s := range jsonStrings(v) {
		if err := g.value(s, true, depth+1); err != nil {
			return err
		}
	}
	for _, d := range decodings(v) {
		if err := g.value(d, whole, depth+1); err != nil {
			return err
		}
	}
	var urls []string
	if hasFold(v, "file:") {
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
	for _, w := range words {
		for _, d := range decodings(w) {
			if err := g.value(d, false, depth+1); err != nil {
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
	word, all := "c\x00"+c, "C\x00"+c
	if g.seen[all] || !whole && g.seen[word] {
		return nil
	}
	g.seen[word] = true
	if whole {
		g.seen[all] = true
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
// with ~user or $HOME expanded (a program run through a shell would).
func (g *gate) expand(c string, whole bool) []string {
	out := []string{c}
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
	abs, err := g.s.absolute(p)
	var de *DeniedError
	if errors.As(err, &de) {
		de.What = c
		return de
	}
	if err != nil {
		return nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil // nothing there to read
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

// wordsOf returns the words of v that could be paths: v without its
// http(s) URLs, split as a request is (quotes, escaped blanks, trailing
// punctuation, @file) and plainly at any blank or control character, and
// each word split again at the punctuation that joins a path to other
// text.
func wordsOf(v string) []string {
	if strings.Contains(v, "://") {
		v = httpURL.ReplaceAllString(v, " ")
	}
	v = blankControls(v)
	var out []string
	// Quoted words keep their blanks ("my file.txt"); the plain split
	// also sees the words inside a quoted sentence.
	for _, w := range append(splitWords(v), strings.Fields(v)...) {
		out = append(out, w)
		if !strings.ContainsFunc(w, isJoiner) {
			continue
		}
		for _, p := range strings.FieldsFunc(w, isJoiner) {
			out = append(out, p)
			if t := strings.TrimRight(strings.TrimLeft(p, "@"), ".!?"); t != p && t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// blankControls replaces every blank and control character of v (a NUL,
// an escape, a no-break space) by a space, keeping every other byte as it
// is — invalid UTF-8 too, which a file name may hold.
func blankControls(v string) string {
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRuneInString(v[i:])
		if r != utf8.RuneError && (unicode.IsSpace(r) || unicode.IsControl(r)) || v[i] == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(v[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isJoiner reports the punctuation that may join a path to other text.
func isJoiner(r rune) bool {
	return strings.ContainsRune(`,;:=|&<>()[]{}"'`+"`*?!#@", r)
}

// decodings returns what v becomes when a tool decodes it: percent-
// encoding undone once, twice, … until nothing changes (leniently: a
// malformed escape stays as it is), and "\/" read as "/". Only forms that
// differ from v are returned.
func decodings(v string) []string {
	var out []string
	for d := v; strings.Contains(d, "%"); {
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

// jsonStrings returns every string inside v when v is a JSON value (an
// object's keys and values, an array's items, a string itself), nil when
// it is not JSON or holds no string.
func jsonStrings(v string) []string {
	t := strings.TrimSpace(v)
	if t == "" || !strings.ContainsAny(t[:1], `[{"`) || !json.Valid([]byte(t)) {
		return nil
	}
	var x any
	if json.Unmarshal([]byte(t), &x) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(x)
	return out
}

// hasFold reports whether s holds sub in any case (sub is lower case
// ASCII).
func hasFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// cutNUL is s up to its first NUL byte.
func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

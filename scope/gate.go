package scope

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Gate is the one check every argument value passes on its way to an
// expert of any kind — a built-in, a program, a local or remote server,
// the controller — after the pipeline resolved it (a <resource>-N became
// another task's output, a default was filled in); a tool that acts on
// what a value names goes through GateFor, which judges it where that tool
// reads it. A value is text an expert may read as a path, so Gate finds
// every path the value could name and refuses it unless the turn may read
// each one, by Check's rule. What is a path (a candidate):
//
//   - the whole value, and the whole of each string inside a JSON value —
//     whatever it names counts, a folder or a device too;
//   - a word of a sentence that is path-shaped — it holds a "/", or
//     starts with "~" or "." — quoted or with escaped blanks, split again
//     at the punctuation that joins a path to other words (key=/path,
//     (path), path:12, "path", a NUL byte); and a quoted name with blanks
//     that names a file. A plain word in a sentence ("hello from
//     chorus") is never a path, whatever files are called;
//   - file: URLs (file:///p, file://localhost/p, file:/p), percent-encoded
//     forms (%2Fetc%2Fpasswd, %2e%2e), "\/" escapes, ~, ~user and $HOME,
//     decoded again and again.
//
// A relative candidate is read from every folder it may be resolved from —
// the turn's working folder (over ssh, the user's), Chorus's own, HOME —
// and "~" as every home; each reading is cleaned (as a tool that cleans a
// path reads it), taken as the kernel does (links followed: a link out of
// a granted folder does not pass), and its names compared NFC (nfc.go). A
// candidate passes only when every reading names nothing or something the
// turn may read; a refusal names the folder that put it outside. A
// candidate longer than any path is judged as a tool cleaning it reads it,
// and refused when even that is too long — never skipped; long text that
// is no path still flows. In a scope confined to a folder (Options.Root)
// the scope's own reading outside it is refused by its name alone, before
// anything is looked at. http(s) URLs are not paths: CheckURL judges
// those when they are fetched, GateFor when a tool gets them.
//
// A refusal is a *DeniedError naming the path as the value wrote it and
// the fix; nothing is opened, so no byte of the file is read.
func (s *Scope) Gate(value string) error {
	_, err := s.GateFor(value, Reader{})
	return err
}

// gate is one GateFor call. Its sets keep each candidate and each value to
// one look; they stop growing at maxSeen entries (a value of millions of
// distinct words then costs a look per word, not memory per word).
type gate struct {
	s *Scope
	r Reader
	// bases are the folders a relative path is read from, the user's
	// first; homes what "~" is, the scope's first.
	bases, homes []Base
	seen         map[kind]map[string]bool
	// args are the whole values judged, with what the tool gets instead.
	args          map[string]string
	whole, values map[string]bool
	looks         map[string]look
	dirs          map[string]*dirNames
	urlSeen       map[string]bool
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

// maxPath is the longest path the kernel opens: PATH_MAX.
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
		if err := g.check(t, kindWhole); err != nil {
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
	err := eachWord(v, func(w string, k kind) error {
		if err := g.check(w, k); err != nil {
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

// check looks at one candidate of kind k.
func (g *gate) check(c string, k kind) error {
	c = strings.TrimSpace(cutNUL(c))
	if c == "" {
		return nil
	}
	shaped := k != kindToken || tokenShaped(c)
	if len(c) > maxPath {
		// A tool that cleans a path reads a long one shorter: that is
		// judged; one still too long opens nothing.
		cl := filepath.Clean(c)
		if len(cl) > maxPath {
			if k == kindWhole && longPath(c) {
				return tooLong(c)
			}
			return nil
		}
		c = cl
	}
	if !shaped || k == kindToken && strings.Trim(c, "/.~") == "" {
		// A plain word of a sentence, or "/", "..", "./": text.
		return nil
	}
	set := g.seen[k]
	if set == nil {
		set = map[string]bool{}
		g.seen[k] = set
	}
	if !once(set, c) {
		return nil
	}
	_, err := g.judge(c, k)
	return err
}

// eachWord calls fn with every word of v that could be a path and its
// kind, stopping at its first error: v without its http(s) URLs, split at
// any blank or control character (a NUL, an escape, a no-break space),
// each as pieces gives it; then the quoted strings and the words with
// escaped blanks, which keep their blanks ("my file.txt", my\ file.txt),
// each as a name and as pieces gives it. Words are
// slices of v where they can be: a long value costs no copy per word.
func eachWord(v string, fn func(string, kind) error) error {
	if strings.Contains(v, "://") {
		v = httpURL.ReplaceAllString(v, " ")
	}
	token := func(w string) error { return fn(w, kindToken) }
	for w := range strings.FieldsFuncSeq(v, isBlank) {
		if err := pieces(w, token); err != nil {
			return err
		}
	}
	named := func(w string) error {
		if err := fn(w, kindNamed); err != nil {
			return err
		}
		return pieces(w, token)
	}
	for q := range quotedWithBlanks(v) {
		if err := named(q); err != nil {
			return err
		}
	}
	if strings.Contains(v, `\ `) {
		for _, w := range splitWords(blankControls(v)) {
			if strings.Contains(w, " ") {
				if err := named(w); err != nil {
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

package scope

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// kind is what part of a value a candidate is: it decides whether the
// candidate is a path at all and what it may name.
type kind int

const (
	// kindToken is a word of a sentence: a path only when path-shaped
	// (it holds a "/", or starts with "~" or "."), and then only what it
	// names as a regular file, or a folder when written with a "/".
	kindToken kind = iota
	// kindNamed is a quoted name with blanks, or one with escaped blanks:
	// a path when it names a regular file.
	kindNamed
	// kindWhole is a whole reading of a value — decoded, cut at a NUL, a
	// string of a JSON text: whatever it names counts.
	kindWhole
	// kindArg is what a tool gets as its argument: the value itself, or
	// a string of a Structured value. As kindWhole, and for a tool it is
	// handed over as the path judged (argument).
	kindArg
)

// reading is one way a tool may read a candidate: a path from a base
// (relative), from a home ("~"), or as written (absolute).
type reading struct {
	// p is the path as the kernel opens it: joined, not cleaned.
	p string
	// base is the folder or home it was read from; zero for an absolute
	// path as written.
	base Base
	// own: the scope's own reading (from its folder, from a home, or as
	// written). A confined scope refuses it by its name alone outside its
	// folder; another reading outside is judged by what it names.
	own bool
	// home: read from a home ("~"), not a base.
	home bool
}

// named says whether a refusal of rd names the folder it was read from:
// one that is not the user's own folder (or, for "~", home).
func (g *gate) named(rd reading) bool {
	own := g.s.wd
	if rd.home {
		own = g.s.home
	}
	return rd.base.Name != "" && rd.base.Dir != filepath.Clean(own)
}

// newGate starts one GateFor call: the folders a relative path is read
// from — the user's first, whose reading a passing path is handed over
// as — and the homes "~" is.
func newGate(s *Scope, r Reader) *gate {
	g := &gate{s: s, r: r, seen: map[kind]map[string]bool{}, args: map[string]string{}, whole: map[string]bool{}, values: map[string]bool{},
		looks: map[string]look{}, dirs: map[string]*dirNames{}, urlSeen: map[string]bool{}}
	add := func(list []Base, b Base) []Base {
		if b.Dir == "" || !filepath.IsAbs(b.Dir) {
			return list
		}
		b.Dir = filepath.Clean(b.Dir)
		for _, o := range list {
			if o.Dir == b.Dir {
				return list
			}
		}
		return append(list, b)
	}
	own := "the working folder"
	home := "your home folder"
	if s.root != "" {
		own, home = "your folder", "your folder"
	}
	g.bases = add(g.bases, Base{Dir: s.wd, Name: own})
	g.bases = add(g.bases, Base{Dir: s.processDir, Name: "Chorus's working folder"})
	g.homes = add(g.homes, Base{Dir: s.home, Name: home})
	// The home a tool started by this process expands "~" to.
	if h := s.processHome; h != "" {
		if r.Tool {
			// A tool started in HOME (by a service manager, a shell)
			// reads a relative path there.
			g.bases = add(g.bases, Base{Dir: h, Name: "the home folder"})
		}
		g.homes = add(g.homes, Base{Dir: h, Name: "the home folder"})
	}
	for _, h := range r.Homes {
		g.homes = add(g.homes, h)
	}
	if r.Tool {
		for _, d := range r.Dirs {
			g.bases = add(g.bases, d)
		}
		for _, d := range s.Roots() {
			g.bases = add(g.bases, Base{Dir: d, Name: "a folder the tool is given"})
		}
	}
	return g
}

// readings are the ways a tool may read c: from each home when it starts
// with "~" (and with $HOME or ~user expanded, as a shell would), as
// written when absolute, else from each base.
func (g *gate) readings(c string) []reading {
	var out []reading
	if c == "~" || strings.HasPrefix(c, "~/") {
		for _, h := range g.homes {
			out = append(out, reading{p: h.Dir + c[1:], base: h, own: true, home: true})
		}
	}
	if strings.Contains(c, "$HOME") || strings.Contains(c, "${HOME}") {
		for _, h := range g.homes {
			p := strings.NewReplacer("${HOME}", h.Dir, "$HOME", h.Dir).Replace(c)
			if filepath.IsAbs(p) {
				out = append(out, reading{p: p, base: h, own: true, home: true})
			}
		}
	}
	if name, rest, ok := tildeUser(c); ok {
		if u, err := user.Lookup(name); err == nil && u.HomeDir != "" {
			out = append(out, reading{p: filepath.Join(u.HomeDir, rest), own: true})
		} else if g.s.root != "" {
			// Another account's home on the server, or not: judged by the
			// name alone, so the answer says nothing of who exists there.
			out = append(out, reading{p: "/~" + name + "/" + rest, own: true})
		}
	}
	if filepath.IsAbs(c) {
		return append(out, reading{p: c, own: true})
	}
	for _, b := range g.bases {
		out = append(out, reading{p: b.Dir + "/" + c, base: b, own: b.Dir == filepath.Clean(g.s.wd)})
	}
	return out
}

// judge looks at every reading of the candidate c: a confined scope's own
// reading outside its folder is refused by its name; any reading that
// names something the turn may not read is refused, naming the folder it
// was read from. found is what c names, as a real path, by its first
// reading that names anything (the user's folder first, the cleaned
// reading before the kernel's); "" when it names nothing anywhere.
func (g *gate) judge(c string, k kind) (found string, err error) {
	for _, rd := range g.readings(c) {
		if rd.own && g.s.root != "" {
			if _, err := g.s.absolute(rd.p); err != nil {
				var de *DeniedError
				if errors.As(err, &de) {
					de.What = shown(c)
					return "", de
				}
				continue
			}
		}
		// A tool that cleans a path first (server-filesystem's
		// path.resolve) reads up/../x beside up; the kernel reads it
		// beside where up leads. Both are judged; only the cleaned one
		// compares names NFC, as that server does.
		for i, p := range []string{filepath.Clean(rd.p), rd.p} {
			if i == 1 && p == filepath.Clean(rd.p) {
				continue
			}
			lk := g.lookup(p, i == 0)
			if !lk.ok || !counts(k, lk, c) {
				continue
			}
			if !g.s.allowed(lk.real) {
				return "", g.denied(c, rd, lk.real)
			}
			if found == "" {
				found = lk.real
			}
		}
	}
	return found, nil
}

// counts says whether what a candidate of kind k names is a path to it:
// a word of a sentence names a regular file, or a folder written as one.
func counts(k kind, lk look, c string) bool {
	switch k {
	case kindToken:
		return lk.regular || lk.dir && strings.Contains(c, "/")
	case kindNamed:
		return lk.regular
	}
	return true
}

// denied is the refusal of c, read by rd, naming real.
func (g *gate) denied(c string, rd reading, real string) *DeniedError {
	de := &DeniedError{What: shown(c), Resolved: real}
	if g.s.root != "" && !within(real, g.s.root) {
		de.Root = g.s.root
	}
	if g.named(rd) {
		de.Base = rd.base.Name
		if de.Root == "" {
			de.Base += " " + rd.base.Dir
		}
	}
	return de
}

// shown is a candidate as a refusal names it: what is left of file:///p
// named as the path.
func shown(c string) string {
	if strings.HasPrefix(c, "//") {
		return filepath.Clean(c)
	}
	return c
}

// argument judges v, a whole value a tool gets, and returns what the tool
// is to get in its place ("" for v itself): for a tool whose folders
// Chorus knows, the real path v names, or the path it would create,
// judged — so that no folder of the tool's own reads it differently.
func (g *gate) argument(v string) (string, error) {
	c := strings.TrimSpace(v)
	if v == "" && g.r.Tool && g.r.Path {
		c = "." // an empty path is the folder a tool reads it from
	}
	if c == "" || strings.IndexByte(c, 0) >= 0 || isHTTPURL(c) {
		return "", nil // a NUL is judged by value (what a C program reads); a URL by urls
	}
	if len(c) > maxPath {
		cl := filepath.Clean(c)
		if len(cl) > maxPath {
			if longPath(c) {
				return "", tooLong(c)
			}
			return "", nil
		}
		c = cl // what a tool that cleans a path reads
	}
	if r, ok := g.args[c]; ok {
		return r, nil
	}
	found, err := g.judge(c, kindArg)
	relative := !filepath.IsAbs(c)
	if g.r.Tool && g.r.Unknown && relative && (err != nil || found != "" || g.writeTarget(c)) {
		return "", &DeniedError{What: shown(c), Why: "is a relative path, and the tool reads it from a folder Chorus cannot know — write the full path"}
	}
	if err != nil || !g.r.Tool {
		return "", err
	}
	if found == "" {
		if !g.writeTarget(c) {
			found = "" // text: nothing there, and nothing a tool could make there
		} else if found, err = g.creation(c); err != nil {
			return "", err
		}
	}
	if len(g.args) < maxSeen {
		g.args[c] = found
	}
	return found, nil
}

// writeTarget says whether c, naming nothing, is a path a tool could
// create: the tool's schema says it is a path, or it is path-shaped and
// some reading of it has a folder to be made in.
func (g *gate) writeTarget(c string) bool {
	if g.r.Path {
		return true
	}
	if !pathShaped(c) {
		return false
	}
	for _, rd := range g.readings(c) {
		if lk := g.lookup(filepath.Dir(filepath.Clean(rd.p)), true); lk.ok && lk.dir {
			return true
		}
	}
	return false
}

// creation judges c as a file a tool would create: read from the user's
// folder (or home), it must lie in a folder the user gave or the outputs
// folder. It returns the path, real where it exists.
func (g *gate) creation(c string) (string, error) {
	p := c
	switch {
	case c == "~" || strings.HasPrefix(c, "~/"):
		p = g.s.home + c[1:]
	case !filepath.IsAbs(c):
		p = g.s.wd + "/" + c
	}
	real, err := g.s.resolveFuture(filepath.Clean(p))
	if err == nil && g.s.mayCreate(real) {
		return real, nil
	}
	de := &DeniedError{What: shown(c), Why: "names no file yet, and a tool would create it outside the folders you gave — write it in the outputs folder"}
	if g.s.outputs != "" {
		de.Why += " (" + g.s.outputs + ")"
	}
	de.Why += ", or give the folder it belongs in"
	if g.s.root != "" && (err != nil || !within(real, g.s.root)) {
		de.Root, de.Why = g.s.root, ""
	}
	return "", de
}

// tooLong is the refusal of a path longer than any the kernel opens.
func tooLong(c string) *DeniedError {
	return &DeniedError{What: c, Why: "is longer than any path (" + strconv.Itoa(maxPath) + " bytes) — write it shorter"}
}

// pathShaped reports whether a whole value reads as a path: it starts
// with "/", "~" or ".", is a file: URL, or holds a "/" and no blank.
func pathShaped(c string) bool {
	if c == "" {
		return false
	}
	switch c[0] {
	case '/', '~', '.':
		return true
	}
	if len(c) >= 5 && strings.EqualFold(c[:5], "file:") {
		return true
	}
	return strings.Contains(c, "/") && !strings.ContainsFunc(c, isBlank)
}

// longPath reports whether c, longer than any path, reads as one: path-
// shaped, on one line (a long text of many lines is no path).
func longPath(c string) bool {
	return pathShaped(c) && !strings.ContainsAny(c, "\n\r")
}

// tokenShaped reports whether a word of a sentence is a path: it holds a
// "/", or starts with "~" or "."; a plain word never is.
func tokenShaped(w string) bool {
	return w != "" && (w[0] == '~' || w[0] == '.' || strings.Contains(w, "/"))
}

// isHTTPURL reports whether c is one http(s) URL.
func isHTTPURL(c string) bool {
	return (hasPrefixFold(c, "http://") || hasPrefixFold(c, "https://")) && !strings.ContainsFunc(c, isBlank)
}

// hasPrefixFold is strings.HasPrefix in any case, looking at no more of s
// than the prefix (a value may be megabytes).
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// look is what a path names: its real path, and whether that is a regular
// file or a folder; ok false when it names nothing.
type look struct {
	real         string
	regular, dir bool
	ok           bool
}

// lookup looks at p once per gate: links followed as the kernel does,
// and, when nfc, its names compared NFC where it names nothing as written
// (nfc.go).
func (g *gate) lookup(p string, nfc bool) look {
	key := p
	if nfc {
		key = "\x00" + p
	}
	if lk, ok := g.looks[key]; ok {
		return lk
	}
	lk := look{}
	real, err := filepath.EvalSymlinks(p)
	if err != nil && nfc && errors.Is(err, fs.ErrNotExist) {
		real, err = nfcResolve(p, g.dirs)
	}
	if err == nil {
		if st, serr := os.Stat(real); serr == nil {
			lk = look{real: real, regular: st.Mode().IsRegular(), dir: st.IsDir(), ok: true}
		}
	}
	if len(g.looks) < maxSeen {
		g.looks[key] = lk
	}
	return lk
}

// mayCreate reports whether a tool may create real (a path naming
// nothing yet): it lies in the outputs folder, or a folder the user gave
// (not a hidden entry of it).
func (s *Scope) mayCreate(real string) bool {
	if s.root != "" && !within(real, s.root) {
		return false
	}
	if s.outputs != "" && real != s.outputs && within(real, s.outputs) {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for dir := range s.dirs {
		if real != dir && within(real, dir) {
			return true
		}
	}
	for dir := range s.folders {
		if real != dir && within(real, dir) && !hiddenBelow(real, dir) {
			return true
		}
	}
	return false
}

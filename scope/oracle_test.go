package scope

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// serverOpens is what @modelcontextprotocol/server-filesystem 2026.8.31
// opens for the argument p, allowed the folders allowed with home its
// HOME — a port of its validatePath (lib.js), written apart from the gate:
// "~" expanded (path.join, which cleans), an absolute path resolved
// (cleaned), a relative one against the first allowed folder that keeps
// it inside (else the first), the check made on the normalised path
// (trimmed, quotes stripped, slashes collapsed), links followed by
// realpath — and, where that names nothing, each name matched to an entry
// of the same NFC form below the allowed folder
// (resolveUnicodeEquivalentPath). ok is false when the server refuses or
// nothing is there.
func serverOpens(p string, allowed []string, home string) (string, bool) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(home, p[1:])
	}
	if regexp.MustCompile(`^[A-Za-z]:([\\/]|$)`).MatchString(p) {
		return "", false
	}
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(allowed[0], p)
		for _, d := range allowed {
			if c := filepath.Join(d, p); serverWithin(serverNormal(c), allowed) {
				abs = c
				break
			}
		}
	}
	if !serverWithin(serverNormal(abs), allowed) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, serverWithin(serverNormal(real), allowed)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	return serverUnicode(abs, allowed)
}

// serverNormal is server-filesystem's normalizePath on a POSIX path.
func serverNormal(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(strings.TrimPrefix(p, `"`), `'`)
	p = strings.TrimSuffix(strings.TrimSuffix(p, `"`), `'`)
	if strings.HasPrefix(p, "/") {
		p = regexp.MustCompile(`/+`).ReplaceAllString(p, "/")
		if len(p) > 1 {
			p = strings.TrimSuffix(p, "/")
		}
	}
	return p
}

// serverWithin is isPathWithinAllowedDirectories.
func serverWithin(p string, allowed []string) bool {
	if p == "" || strings.ContainsRune(p, 0) || !filepath.IsAbs(p) {
		return false
	}
	p = filepath.Clean(p)
	for _, d := range allowed {
		d = filepath.Clean(d)
		if p == d || d == "/" || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// serverUnicode is resolveUnicodeEquivalentPath: below the longest allowed
// folder holding abs, each name matched exactly or by NFC form, links
// followed, every step kept inside. A name with no match means nothing is
// there to read.
func serverUnicode(abs string, allowed []string) (string, bool) {
	var dir string
	for _, d := range allowed {
		if serverWithin(serverNormal(abs), []string{d}) && len(d) > len(dir) {
			dir = d
		}
	}
	if dir == "" {
		return "", false
	}
	cur, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return "", false
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." {
			continue
		}
		entries, _ := os.ReadDir(cur)
		var match []string
		for _, e := range entries {
			if e.Name() == part {
				match = []string{part}
				break
			}
			if norm.NFC.String(e.Name()) == norm.NFC.String(part) {
				match = append(match, e.Name())
			}
		}
		if len(match) != 1 {
			return "", false
		}
		if cur, err = filepath.EvalSymlinks(filepath.Join(cur, match[0])); err != nil || !serverWithin(serverNormal(cur), allowed) {
			return "", false
		}
	}
	return cur, true
}

// serverArgs are the paths a tool reads in v: v itself, and each string
// of v when it is a JSON list (read_multiple_files' paths).
func serverArgs(v string) []string {
	out := []string{v}
	var list []any
	if json.Unmarshal([]byte(v), &list) == nil {
		for _, e := range list {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

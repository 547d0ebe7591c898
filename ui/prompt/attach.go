package prompt

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// attachToken is an @file reference found in a prompt.
type attachToken struct {
	start, end int // byte offsets of the whole token, "@" included
	path       string
}

// scanAttachTokens finds @path tokens: "@" at the start of a word, then a
// path that runs to the next unescaped blank, or a quoted path @"a b.png".
func scanAttachTokens(s string) []attachToken {
	var out []attachToken
	for i := 0; i < len(s); i++ {
		if s[i] != '@' || (i > 0 && !isBlank(s[i-1])) {
			continue
		}
		j := i + 1
		var path strings.Builder
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			q := s[j]
			k := strings.IndexByte(s[j+1:], q)
			if k < 0 {
				continue
			}
			path.WriteString(s[j+1 : j+1+k])
			j = j + 1 + k + 1
		} else {
			for j < len(s) && !isBlank(s[j]) {
				if s[j] == '\\' && j+1 < len(s) && s[j+1] == ' ' {
					path.WriteByte(' ')
					j += 2
					continue
				}
				path.WriteByte(s[j])
				j++
			}
		}
		if path.Len() == 0 {
			continue
		}
		out = append(out, attachToken{start: i, end: j, path: path.String()})
		i = j - 1
	}
	return out
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// ExpandPath resolves ~ and makes p absolute, as the prompt reads a path.
func ExpandPath(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// looksLikePath tells a file reference from a mention such as "@alice":
// only the former must exist.
func looksLikePath(p string) bool {
	return strings.ContainsAny(p, "/.~\\")
}

// ResolveAttachments replaces each @file (or @folder) in text by its
// absolute path and returns the paths. A token that looks like a path but names no readable
// file is an error naming it, so nothing is sent by mistake.
func ResolveAttachments(text string) (string, []string, error) {
	return ResolveAttachmentsIn(text, ExpandPath, nil)
}

// ResolveAttachmentsIn is ResolveAttachments with paths made absolute by
// expand (Completer.Expand) and, when confine is not nil, refused by it
// before they are looked at (Completer.Confine).
func ResolveAttachmentsIn(text string, expand func(string) string, confine func(string) error) (string, []string, error) {
	toks := scanAttachTokens(text)
	if len(toks) == 0 {
		return text, nil, nil
	}
	var b strings.Builder
	var files []string
	last := 0
	for _, t := range toks {
		abs := expand(t.path)
		if confine != nil {
			if err := confine(abs); err != nil {
				return text, nil, fmt.Errorf("cannot attach @%s: %w", t.path, err)
			}
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil && !looksLikePath(t.path):
			continue // a mention, not a file
		case err != nil:
			return text, nil, fmt.Errorf("cannot attach @%s: %w — check the path (Tab completes file names)", t.path, unwrapPathErr(err))
		case st.IsDir() && filepath.Dir(abs) == abs:
			return text, nil, fmt.Errorf("cannot attach @%s: the file system's root is never attached — name the folder you mean", t.path)
		}
		// A folder attaches too: a grant of its paths to the tools that
		// take one (scope.AllowFolder).
		if f, err := os.Open(abs); err != nil {
			return text, nil, fmt.Errorf("cannot attach @%s: %w", t.path, unwrapPathErr(err))
		} else {
			f.Close()
		}
		b.WriteString(text[last:t.start])
		b.WriteString(abs)
		last = t.end
		if !slices.Contains(files, abs) {
			files = append(files, abs)
		}
	}
	b.WriteString(text[last:])
	return b.String(), files, nil
}

func unwrapPathErr(err error) error {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// pastedPaths recognises a paste that is only file paths (one per line, or
// shell-quoted and backslash-escaped as terminals paste dropped files, or
// file:// URLs) and returns them when every one exists.
func pastedPaths(s string, expand func(string) string, confine func(string) error) []string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 8192 {
		return nil
	}
	var cands []string
	if strings.Contains(s, "\n") {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				cands = append(cands, l)
			}
		}
	} else {
		cands = shellWords(s)
	}
	var out []string
	for _, c := range cands {
		c = strings.Trim(c, `"'`)
		if strings.HasPrefix(c, "file://") {
			u, err := url.Parse(c)
			if err != nil {
				return nil
			}
			c = u.Path
		}
		if !looksLikePath(c) {
			return nil
		}
		abs := expand(c)
		if confine != nil && confine(abs) != nil {
			return nil // outside: stays text, never looked at
		}
		st, err := os.Stat(abs)
		if err != nil || st.IsDir() {
			return nil
		}
		out = append(out, abs)
	}
	return out
}

// shellWords splits s at blanks, honouring quotes and backslash escapes.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	have := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, have = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			have = true
		case isBlank(c):
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// attachRef writes path as an @token the prompt parser reads back.
func attachRef(path string) string {
	if strings.ContainsAny(path, " \t") {
		return `@"` + path + `"`
	}
	return "@" + path
}

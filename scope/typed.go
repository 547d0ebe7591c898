package scope

import (
	"os"
	"regexp"
	"slices"
	"strings"
)

// AllowTyped grants what the user typed in their own request: every
// existing regular file whose path appears in it (quoted, with escaped
// blanks, or bare), every folder written as a path — with a "/" ("docs/",
// "~/photos", "/srv/data") or "~" — as AllowFolder grants it, and every
// http(s) URL. A bare word that happens to name a folder ("docs") grants
// nothing. A typed URL may name a private or loopback address: the user
// asked for it.
func (s *Scope) AllowTyped(request string) {
	for _, p := range pathsIn(request) {
		real, err := s.resolve(p)
		if err != nil {
			continue
		}
		st, err := os.Stat(real)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			s.mu.Lock()
			s.files[real] = Typed
			s.mu.Unlock()
		case st.IsDir() && (strings.Contains(p, "/") || p == "~") && strings.Trim(p, "/.") != "":
			_ = s.AllowFolder(p, Typed) // the root is not granted: a mention, not a request
		}
	}
	for _, u := range URLsIn(request) {
		s.AllowURL(u, Typed)
	}
}

// Named returns the existing regular files whose paths appear in text, as
// AllowTyped finds them, resolved (absolute, links followed), in the order
// they appear and each once. It grants nothing: the caller decides what
// the files are for (a turn treats the media among them as attachments).
func (s *Scope) Named(text string) []string {
	var out []string
	for _, p := range pathsIn(text) {
		real, err := s.resolve(p)
		if err != nil || slices.Contains(out, real) {
			continue
		}
		if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
			continue
		}
		out = append(out, real)
	}
	return out
}

var urlPattern = regexp.MustCompile(`(?i)\bhttps?://[^\s<>"'` + "`" + `]+`)

// URLsIn returns the http(s) URLs in text, without the punctuation that
// ends a sentence or closes a bracket around them.
func URLsIn(text string) []string {
	var out []string
	for _, u := range urlPattern.FindAllString(text, -1) {
		u = strings.TrimRight(u, ".,;:!?")
		for strings.HasSuffix(u, ")") && strings.Count(u, "(") < strings.Count(u, ")") {
			u = strings.TrimSuffix(u, ")")
		}
		out = append(out, u)
	}
	return out
}

// pathsIn returns the words of text that could be paths: quoted strings,
// words with escaped blanks, and bare words, each also without trailing
// sentence punctuation; never a word holding a URL ("://"). Whether they
// name files is for the caller to see.
func pathsIn(text string) []string {
	var out []string
	for _, w := range splitWords(text) {
		if !strings.Contains(w, "://") {
			out = append(out, w)
		}
	}
	return out
}

// splitWords splits text as a person writes paths in it: quoted strings,
// words with escaped blanks, and bare words, each also without trailing
// sentence punctuation, and "@path" also as "path".
func splitWords(text string) []string {
	var out []string
	add := func(w string) {
		w = strings.TrimSpace(w)
		if w == "" || len(w) > 4096 {
			return
		}
		out = append(out, w)
		t := strings.TrimLeft(strings.TrimRight(w, ".,;:!?)]}>'\""), "([{<'\"")
		if t != w && t != "" {
			out = append(out, t)
		}
	}
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			add(word.String())
			word.Reset()
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\\' && i+1 < len(text) && text[i+1] == ' ':
			word.WriteByte(' ')
			i++
		case c == '"' || c == '\'' || c == '`':
			if end := strings.IndexByte(text[i+1:], c); end >= 0 && word.Len() == 0 {
				add(text[i+1 : i+1+end])
				i += end + 1
				continue
			}
			word.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		default:
			word.WriteByte(c)
		}
	}
	flush()
	// "@path" is how the TUI attaches; typed without the TUI it still
	// names the file.
	for _, w := range out[:len(out):len(out)] {
		if strings.HasPrefix(w, "@") && len(w) > 1 {
			out = append(out, w[1:])
		}
	}
	return out
}

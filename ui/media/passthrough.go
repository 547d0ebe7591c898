package media

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// screenChunk is the longest string GNU screen passes through in one DCS.
const screenChunk = 768

// Passthrough wraps each graphics escape sequence in s (kitty APC, iTerm2
// OSC 1337, sixel DCS) in the multiplexer's passthrough envelope when getenv
// says we run inside tmux or GNU screen, so the sequence reaches the outer
// terminal; x/ansi writes the envelopes. tmux drops them unless `set -g
// allow-passthrough on`; that is why Detect falls back to half-blocks inside
// a multiplexer and only CHORUS_IMAGES turns graphics back on. Elsewhere, and
// for text such as half-blocks, s is returned unchanged.
//
// What x/ansi lacks is finding the sequences in a rendering: a kitty image
// is many chunks, each its own sequence that must be wrapped on its own.
func Passthrough(s string, getenv func(string) string) string {
	if getenv == nil {
		return s
	}
	var wrap func(string) string
	switch {
	case getenv("TMUX") != "":
		wrap = ansi.TmuxPassthrough
	case getenv("STY") != "":
		wrap = func(seq string) string { return ansi.ScreenPassthrough(seq, screenChunk) }
	default:
		return s
	}
	var sb strings.Builder
	for len(s) > 0 {
		start, end := nextGraphics(s)
		if start < 0 {
			sb.WriteString(s)
			break
		}
		sb.WriteString(s[:start])
		sb.WriteString(wrap(s[start:end]))
		s = s[end:]
	}
	return sb.String()
}

// nextGraphics finds the first complete graphics sequence in s.
func nextGraphics(s string) (start, end int) {
	best := -1
	term := ""
	for _, intro := range []struct{ open, close string }{
		{"\x1b_G", "\x1b\\"},
		{"\x1bP", "\x1b\\"},
		{"\x1b]1337;", "\a"},
	} {
		if i := strings.Index(s, intro.open); i >= 0 && (best < 0 || i < best) {
			best, term = i, intro.close
		}
	}
	if best < 0 {
		return -1, -1
	}
	j := strings.Index(s[best+2:], term)
	if j < 0 {
		return -1, -1
	}
	return best, best + 2 + j + len(term)
}

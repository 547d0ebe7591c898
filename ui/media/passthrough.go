package media

import "strings"

// Passthrough wraps each graphics escape sequence in s (kitty APC, iTerm2
// OSC 1337, sixel DCS) in tmux's passthrough envelope when getenv says we
// run inside tmux, so the sequence reaches the outer terminal. tmux drops
// these unless `set -g allow-passthrough on`; that is why Detect falls back
// to half-blocks in tmux and only CHORUS_IMAGES turns graphics back on.
// Outside tmux, and for text such as half-blocks, s is returned unchanged.
func Passthrough(s string, getenv func(string) string) string {
	if getenv == nil || getenv("TMUX") == "" {
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
		sb.WriteString("\x1bPtmux;")
		sb.WriteString(strings.ReplaceAll(s[start:end], "\x1b", "\x1b\x1b"))
		sb.WriteString("\x1b\\")
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

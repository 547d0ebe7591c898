package chat

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/text"
)

// WrapPlain wraps text without Markdown rendering: raw mode and fallbacks.
func WrapPlain(src string, width int) []string {
	if width < 1 {
		width = 1
	}
	src = text.Clean(src)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		l = strings.ReplaceAll(l, "\t", "    ")
		w := ansi.Wrap(l, width, " ")
		out = append(out, strings.Split(w, "\n")...)
	}
	return out
}

// Clip makes s one line of at most n characters: cleaned, blanks
// collapsed, and cut with "…" where it is longer.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(text.Clean(s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// PadLines makes lines exactly n long: cut, or padded with blank lines.
func PadLines(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

// PadRight pads a styled line with spaces to width w (cutting longer ones).
func PadRight(s string, w int) string {
	n := ansi.StringWidth(s)
	switch {
	case n > w:
		return ansi.Truncate(s, w, "")
	case n < w:
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

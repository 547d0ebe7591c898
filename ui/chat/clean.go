package chat

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Clean makes text from outside the app (the controller's answer and
// reasons, task results, server errors, file names, session files) safe to
// draw: escape sequences are removed, so an answer cannot clear the screen,
// retitle the window or write the clipboard (OSC 52); other control
// characters (carriage return, backspace, bell, C1 controls) are dropped,
// since they would move the cursor behind the renderer's back and garble
// the frame. A lone carriage return becomes a newline; newlines and tabs
// stay. Text without any of these is returned as is, without copying.
func Clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			// dropped: a control character
		case r == utf8.RuneError:
			b.WriteRune(r) // invalid bytes show as U+FFFD
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsCleaning reports whether s holds a control character other than a
// newline or a tab (C0, DEL, or a C1 control encoded in UTF-8).
func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c < 0x20 || c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return true
		}
	}
	return false
}

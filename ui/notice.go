package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// flash sets the one-line notice above the prompt. An error too long for
// that line (or of several lines) is also written to the chat in full: the
// hint line would cut it, and the end of an error is often the part that
// says what to do.
func (m *Model) flash(text string, bad bool) {
	m.notice, m.noticeBad, m.noticeWhile = text, bad, noActivity
	if bad && (ansi.StringWidth(text) > m.width-1 || strings.Contains(text, "\n")) {
		m.systemError(text)
	}
}

// activity is something under way that a notice can describe.
type activity int

// flashWhile sets a notice about an activity under way; it clears when the
// activity ends (or on the next key, like any notice).
func (m *Model) flashWhile(text string, a activity) {
	m.notice, m.noticeBad, m.noticeWhile = text, false, a
}

// ended clears the notice about activity a, if it is the one shown.
func (m *Model) ended(a activity) {
	if m.notice != "" && m.noticeWhile == a {
		m.notice, m.noticeWhile = "", noActivity
	}
}

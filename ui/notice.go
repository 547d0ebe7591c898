package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// notice is a one-line message above the prompt (copied, errors of
// commands); it clears on the next key. A notice about something under way
// ("cancelling the turn…") names it in while and also clears when that
// ends, so it never outlives what it describes.
type notice struct {
	text  string
	bad   bool
	while activity
}

// activity is something under way that a notice can describe.
type activity int

const (
	noActivity activity = iota
	turnActivity
	pullActivity
)

// flash sets the one-line notice above the prompt. An error too long for
// that line (or of several lines) is also written to the chat in full: the
// hint line would cut it, and the end of an error is often the part that
// says what to do.
func (m *Model) flash(text string, bad bool) {
	m.notice = notice{text: text, bad: bad}
	if bad && (ansi.StringWidth(text) > m.width-1 || strings.Contains(text, "\n")) {
		m.systemError(text)
	}
}

// flashWhile sets a notice about an activity under way; it clears when the
// activity ends (or on the next key, like any notice).
func (m *Model) flashWhile(text string, a activity) {
	m.notice = notice{text: text, while: a}
}

// ended clears the notice about activity a, if it is the one shown.
func (m *Model) ended(a activity) {
	if m.notice.text != "" && m.notice.while == a {
		m.notice = notice{}
	}
}

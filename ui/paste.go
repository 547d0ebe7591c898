package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// A chat takes at most MaxPaste bytes of pasted or typed text in its
// prompt: a request is words, and a file belongs attached (@file, or a
// pasted path). A larger paste is refused whole, with a note saying so —
// never cut short, which would send half of what the user meant — and
// the prompt, the program's memory and the controller's context stay
// bounded. Over ssh the connection's input is bounded before it reaches
// the program (sshd's paste limiter), which tells the chat with
// PasteTooLarge.

// DefaultMaxPaste is the largest paste a chat takes when
// Options.MaxPaste is 0.
const DefaultMaxPaste = 1 << 20

// PasteTooLarge tells a chat that a paste of Size bytes was refused
// before it reached it, Limit being the most it takes.
type PasteTooLarge struct{ Size, Limit int64 }

// maxPaste is the chat's limit.
func (m *Model) maxPaste() int64 {
	if m.opts.MaxPaste > 0 {
		return m.opts.MaxPaste
	}
	return DefaultMaxPaste
}

// pasteTooLarge says a paste was refused, and how to send it instead.
func (m *Model) pasteTooLarge(size, limit int64) {
	m.flash(PasteTooLargeNote(size, limit), true)
}

// PasteTooLargeNote is the note for a refused paste: "paste is too large
// (10.0 MB, limit 1 MB) — attach it as a file".
func PasteTooLargeNote(size, limit int64) string {
	return fmt.Sprintf("paste is too large (%s, limit %s) — attach it as a file", pasteSize(size, 1), pasteSize(limit, 0))
}

// pasteSize renders a byte count with the given decimals of MB (KB below
// one MB).
func pasteSize(n int64, decimals int) string {
	switch {
	case n >= 1<<20 && decimals == 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.*f MB", max(decimals, 1), float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// pasteFits reports whether a paste may go into the prompt; when it may
// not, the chat has said why.
func (m *Model) pasteFits(p tea.PasteMsg) bool {
	limit := m.maxPaste()
	if size := int64(len(p.Content)); size > limit || int64(len(m.input.Value()))+size > limit {
		m.pasteTooLarge(size, limit)
		return false
	}
	return true
}

package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/ui/chat"
)

// mediaPreviewer is what the TUI needs from ui/media: inline previews made
// of text cells (safe inside the cell renderer, in tmux and over ssh), a
// full-size rendering in the terminal's graphics protocol, and audio
// playback.
type mediaPreviewer interface {
	// Thumb renders an image as half-block cells, cols×rows at most.
	Thumb(path string, cols, rows int) (string, error)
	// Full renders an image for the whole screen with the best protocol
	// the terminal supports (kitty, iTerm2, sixel, half-blocks).
	Full(path string, cols, rows int) (string, error)
	// Protocol names the protocol Full uses.
	Protocol() string
	// Player names the audio player found, if any.
	Player() (string, bool)
	// Play plays an audio file until it ends or ctx is cancelled.
	Play(ctx context.Context, path string) error
}

// thumbMsg carries a finished preview ("" when the file cannot be shown).
type thumbMsg struct {
	key  chat.ThumbKey
	text string
}

// makeThumb returns the command that renders one preview off the UI
// goroutine.
func makeThumb(mp mediaPreviewer, key chat.ThumbKey) tea.Cmd {
	return func() tea.Msg {
		s, err := mp.Thumb(key.Path, key.Cols, key.Rows)
		if err != nil {
			s = ""
		}
		return thumbMsg{key: key, text: s}
	}
}

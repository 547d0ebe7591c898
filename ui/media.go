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

// requestThumbs starts making the inline previews the chat needs at the
// current width.
func (m *Model) requestThumbs() tea.Cmd {
	if !m.images || m.media == nil {
		return nil
	}
	w := m.chatWidth() - 1 // the width messages render at
	var cmds []tea.Cmd
	for _, cm := range m.chat.Messages() {
		if !cm.Final {
			continue
		}
		for _, p := range chat.PreviewPaths(append(append([]string{}, cm.Attachments...), cm.Files...)) {
			k := chat.ThumbKeyFor(p, w, m.height)
			if _, ok := m.thumbs[k]; ok {
				continue
			}
			m.thumbs[k] = "" // pending: never ask twice
			cmds = append(cmds, makeThumb(m.media, k))
		}
	}
	return tea.Batch(cmds...)
}

// onThumb keeps a finished preview; the messages that show its file are
// drawn again with it.
func (m *Model) onThumb(msg thumbMsg) tea.Cmd {
	m.thumbs[msg.key] = msg.text
	if msg.text != "" {
		m.chat.InvalidatePath(msg.key.Path)
	}
	return nil
}

package ui

import (
	"context"
	"mime"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/skills"
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

// thumbRows is the height of an inline image preview: smaller on short
// terminals, where the chat has few rows to give.
func thumbRows(termHeight int) int {
	switch {
	case termHeight >= 40:
		return 8
	case termHeight >= 30:
		return 6
	}
	return 4
}

// kindOf classifies a file by its extension alone. pipeline.ModalityOf
// sniffs the content of files with unknown extensions, which is file I/O
// that must not happen while rendering.
func kindOf(path string) skills.Modality {
	t := mime.TypeByExtension(strings.ToLower(filepath.Ext(path)))
	switch {
	case strings.HasPrefix(t, "image/"):
		return skills.Image
	case strings.HasPrefix(t, "audio/"):
		return skills.Audio
	case strings.HasPrefix(t, "video/"):
		return skills.Video
	case strings.HasPrefix(t, "text/"), strings.HasPrefix(t, "application/json"):
		return skills.Text
	}
	switch strings.ToLower(filepath.Ext(path)) { // common ones some systems lack
	case ".webp", ".heic", ".tif", ".tiff", ".bmp":
		return skills.Image
	case ".wav", ".flac", ".ogg", ".oga", ".opus", ".m4a", ".mp3", ".aac":
		return skills.Audio
	case ".mkv", ".webm", ".mov", ".mp4", ".avi", ".m4v":
		return skills.Video
	case ".md", ".csv", ".tsv", ".txt":
		return skills.Text
	}
	return ""
}

// thumbKey identifies a preview: the file and the width it was made for.
type thumbKey struct {
	path       string
	cols, rows int
}

// thumbSize is the box of an inline preview for a chat of width w on a
// terminal h rows high (cells are about twice as high as wide).
func thumbSize(w, h int) (cols, rows int) {
	rows = thumbRows(h)
	return max(8, min(w-2, rows*4)), rows
}

// thumbKeyFor identifies path's preview at the current size.
func thumbKeyFor(path string, w, h int) thumbKey {
	c, r := thumbSize(w, h)
	return thumbKey{path, c, r}
}

// previewPaths returns the images among paths that get an inline preview
// (two at most, so a turn with many images stays readable).
func previewPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if len(out) == 2 {
			break
		}
		if kindOf(p) == skills.Image && !containsStr(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// previews returns the inline previews of the images among paths that
// have been made; the rest appear once their thumbMsg arrives. Two
// previews sit side by side where they fit, else one under the other with
// a blank line between: stacked flush, two pictures read as one.
func previews(rc renderCtx, paths []string, w int) []string {
	var blocks [][]string
	for _, p := range previewPaths(paths) {
		s := rc.thumbs[thumbKeyFor(p, w, rc.termHeight)]
		if s == "" {
			continue
		}
		blocks = append(blocks, strings.Split(strings.TrimRight(s, "\n"), "\n"))
	}
	const gap = "  "
	width := func(b []string) int {
		n := 0
		for _, l := range b {
			n = max(n, ansi.StringWidth(l))
		}
		return n
	}
	var out []string
	if len(blocks) == 2 && 2+width(blocks[0])+len(gap)+width(blocks[1]) <= w {
		left, right := blocks[0], blocks[1]
		lw := width(left)
		for i := range max(len(left), len(right)) {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			out = append(out, "  "+padRight(l, lw)+gap+r)
		}
		return out
	}
	for i, b := range blocks {
		if i > 0 {
			out = append(out, "")
		}
		for _, l := range b {
			out = append(out, "  "+l)
		}
	}
	return out
}

// thumbMsg carries a finished preview ("" when the file cannot be shown).
type thumbMsg struct {
	key  thumbKey
	text string
}

// makeThumb returns the command that renders one preview off the UI
// goroutine.
func makeThumb(mp mediaPreviewer, key thumbKey) tea.Cmd {
	return func() tea.Msg {
		s, err := mp.Thumb(key.path, key.cols, key.rows)
		if err != nil {
			s = ""
		}
		return thumbMsg{key: key, text: s}
	}
}

// lastOf returns the newest path of modality m among the chat's files.
func lastOf(msgs []*message, m skills.Modality) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		all := append(append([]string{}, msgs[i].files...), msgs[i].attachments...)
		for j := len(all) - 1; j >= 0; j-- {
			if kindOf(all[j]) == m {
				return all[j]
			}
		}
	}
	return ""
}

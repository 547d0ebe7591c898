package chat

import (
	"fmt"
	"mime"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
	"github.com/chorusai/chorus/ui/theme"
)

// FileLine shows one attached or generated file: kind, name, and the full
// path as an OSC 8 file:// hyperlink terminals can open.
func FileLine(st *theme.Styles, verb, path string, w int, links bool) string {
	kind := string(kindOf(path))
	if kind == "" {
		kind = "file"
	}
	head := fmt.Sprintf("  ↳ %s %s: ", verb, kind)
	room := w - ansi.StringWidth(head)
	shown := strings.ReplaceAll(text.Clean(path), "\n", " ")
	if ansi.StringWidth(shown) > room {
		shown = "…" + ansi.TruncateLeft(shown, ansi.StringWidth(shown)-room+1, "")
	}
	if shown == "" {
		shown = filepath.Base(path)
	}
	text := st.Link.Render(shown)
	if links {
		text = Hyperlink(FileURL(path), text)
	}
	return st.Dim.Render(head) + text
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

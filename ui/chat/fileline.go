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
	// The one file-type table; then the system's, for the rest.
	if m, ok := skills.ModalityOfName(path); ok {
		return m
	}
	return skills.ModalityOfMIME(mime.TypeByExtension(strings.ToLower(filepath.Ext(path))))
}

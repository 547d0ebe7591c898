package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/theme"
)

// role is who a chat entry comes from.
type role int

const (
	roleUser role = iota
	roleAssistant
	roleSystem // app notices, command output
	roleError
	roleDebug // raw controller prompts and replies, shown with /debug
)

// message is one entry of the chat view. Text is the source; lines caches
// its rendering for one width and mode. A finished message is rendered once
// and again only when the width or the raw/rendered mode changes; the one
// still streaming keeps a block cache in stream.
type message struct {
	role role
	// text is Markdown (assistant, system) or plain text (user).
	text string
	// title replaces the role label (debug entries name their stage).
	title string
	// attachments are files the user attached; files are files a turn made.
	attachments []string
	files       []string
	// meta is shown after the label: model, elapsed, tokens per second.
	meta string
	// final is false while the answer streams.
	final bool

	cacheWidth int
	cacheRaw   bool
	lines      []string
	stream     streamRender
}

// invalidate drops the cached rendering, e.g. when text changed.
func (m *message) invalidate() { m.lines = nil }

// renderCtx carries what rendering a message needs from the model.
type renderCtx struct {
	md     *markdown
	st     *theme.Styles
	width  int
	raw    bool
	links  bool
	media  mediaPreviewer
	images bool // inline image previews wanted
	// thumbs holds the previews made so far; rendering never decodes an
	// image itself (that is file I/O), the model makes them in a command.
	thumbs map[thumbKey]string
	// termHeight sizes the previews.
	termHeight int
}

// render returns the message's lines, from the cache when possible.
func (m *message) render(rc renderCtx) []string {
	if m.final && m.lines != nil && m.cacheWidth == rc.width && m.cacheRaw == rc.raw {
		return m.lines
	}
	lines := m.build(rc)
	if m.final {
		m.lines, m.cacheWidth, m.cacheRaw = lines, rc.width, rc.raw
	}
	return lines
}

func (m *message) build(rc renderCtx) []string {
	st := rc.st
	w := max(rc.width, 12)
	var out []string
	label := ""
	switch m.role {
	case roleUser:
		label = st.UserLabel.Render("You")
	case roleAssistant:
		label = st.AssistantLabel.Render("Chorus")
	case roleSystem:
		label = st.SystemLabel.Render(cmpStr(m.title, "Chorus"))
	case roleError:
		label = st.ErrorLabel.Render(cmpStr(m.title, "Error"))
	case roleDebug:
		label = st.SystemLabel.Render(cmpStr(m.title, "debug"))
	}
	if m.meta != "" {
		label += st.Meta.Render(" · " + m.meta)
	}
	out = append(out, label)

	body := m.body(rc, w)
	out = append(out, body...)
	for _, a := range m.attachments {
		out = append(out, fileLine(st, "attached", a, w, rc.links))
	}
	for _, f := range m.files {
		if m.role == roleAssistant && strings.Contains(m.text, f) {
			continue // the answer's Files section shows it, as a link
		}
		out = append(out, fileLine(st, "file", f, w, rc.links))
	}
	if rc.images && rc.media != nil && m.final {
		out = append(out, previews(rc, append(append([]string{}, m.attachments...), m.files...), w)...)
	}
	return append(out, "")
}

func (m *message) body(rc renderCtx, w int) []string {
	st := rc.st
	switch m.role {
	case roleUser:
		bar := st.UserBar.Render("│") + " "
		var out []string
		for _, l := range wrapPlain(m.text, w-2) {
			out = append(out, bar+st.UserText.Render(l))
		}
		return out
	case roleDebug:
		var out []string
		for _, l := range wrapPlain(m.text, w-2) {
			out = append(out, "  "+st.Dim.Render(l))
		}
		return out
	}
	if strings.TrimSpace(m.text) == "" {
		if m.final {
			return nil
		}
		return []string{"  " + st.Dim.Render("…")}
	}
	if rc.raw {
		var out []string
		for _, l := range wrapPlain(m.text, w-2) {
			out = append(out, "  "+l)
		}
		return out
	}
	var lines []string
	if m.final {
		lines = rc.md.Render(m.text, w)
	} else {
		lines = m.stream.Lines(rc.md, m.text, w)
	}
	if rc.links {
		lines = linkPaths(lines, append(append([]string{}, m.attachments...), m.files...))
	}
	return lines
}

// fileLine shows one attached or generated file: kind, name, and the full
// path as an OSC 8 file:// hyperlink terminals can open.
func fileLine(st *theme.Styles, verb, path string, w int, links bool) string {
	kind := string(kindOf(path))
	if kind == "" {
		kind = "file"
	}
	head := fmt.Sprintf("  ↳ %s %s: ", verb, kind)
	room := w - ansi.StringWidth(head)
	shown := strings.ReplaceAll(cleanText(path), "\n", " ")
	if ansi.StringWidth(shown) > room {
		shown = "…" + ansi.TruncateLeft(shown, ansi.StringWidth(shown)-room+1, "")
	}
	if shown == "" {
		shown = filepath.Base(path)
	}
	text := st.Link.Render(shown)
	if links {
		text = hyperlink(fileURL(path), text)
	}
	return st.Dim.Render(head) + text
}

// count writes n and a noun that takes a plain "s": "1 turn", "3 turns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

package chat

import (
	"cmp"
	"strings"

	"github.com/chorusai/chorus/text"
	"github.com/chorusai/chorus/ui/theme"
)

// Role is who a chat entry comes from.
type Role int

// The roles, in the order the label styles are listed.
const (
	RoleUser Role = iota
	RoleAssistant
	RoleSystem // app notices, command output
	RoleError
	RoleDebug // raw controller prompts and replies, shown with /debug
)

// Message is one entry of the chat view. Text is the source; lines caches
// its rendering for one width and mode. A finished message is rendered once
// and again only when the width or the raw/rendered mode changes; the one
// still streaming keeps a block cache in stream.
type Message struct {
	Role Role
	// Text is Markdown (assistant, system) or plain text (user).
	Text string
	// Title replaces the role label (debug entries name their stage).
	Title string
	// Attachments are files the user attached; Files are files a turn made.
	Attachments []string
	Files       []string
	// Meta is shown after the label: model, elapsed, tokens per second.
	Meta string
	// Final is false while the answer streams.
	Final bool

	cacheWidth int
	cacheRaw   bool
	lines      []string
	stream     streamRender
}

// Invalidate drops the cached rendering, e.g. when text changed or the
// message scrolled far out of view.
func (m *Message) Invalidate() { m.lines, m.stream = nil, streamRender{} }

// RenderContext carries what rendering a message needs from its parent:
// the renderers, the width and mode, and the previews made so far.
type RenderContext struct {
	Markdown *Markdown
	Styles   *theme.Styles
	Width    int
	Raw      bool
	Links    bool
	// Images is set when inline image previews are wanted and can be made.
	Images bool
	// Thumbs holds the previews made so far; rendering never decodes an
	// image itself (that is file I/O), the model makes them in a command.
	Thumbs map[ThumbKey]string
	// TermHeight sizes the previews.
	TermHeight int
}

// Render returns the message's lines, from the cache when possible.
func (m *Message) Render(rc RenderContext) []string {
	if m.Final && m.lines != nil && m.cacheWidth == rc.Width && m.cacheRaw == rc.Raw {
		return m.lines
	}
	lines := m.build(rc)
	if m.Final {
		// The blocks rendered while it streamed are never used again.
		m.stream = streamRender{}
		m.lines, m.cacheWidth, m.cacheRaw = compactLines(lines), rc.Width, rc.Raw
		return m.lines
	}
	return lines
}

// compactLines copies lines into one string of their own. Glamour pads
// every line to the wrap width and trimming keeps slices of its padded
// output alive; a cached rendering should hold only what it shows.
func compactLines(lines []string) []string {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range lines {
		b.WriteString(l)
	}
	all := b.String()
	out := make([]string, len(lines))
	at := 0
	for i, l := range lines {
		out[i] = all[at : at+len(l)]
		at += len(l)
	}
	return out
}

// Rendered reports whether the message holds a cached rendering.
func (m *Message) Rendered() bool { return m.lines != nil }

func (m *Message) build(rc RenderContext) []string {
	st := rc.Styles
	w := max(rc.Width, 12)
	var out []string
	label := ""
	switch m.Role {
	case RoleUser:
		label = st.UserLabel.Render("You")
	case RoleAssistant:
		label = st.AssistantLabel.Render("Chorus")
	case RoleSystem:
		label = st.SystemLabel.Render(cmp.Or(m.Title, "Chorus"))
	case RoleError:
		label = st.ErrorLabel.Render(cmp.Or(m.Title, "Error"))
	case RoleDebug:
		label = st.SystemLabel.Render(cmp.Or(m.Title, "debug"))
	}
	if m.Meta != "" {
		label += st.Meta.Render(" · " + m.Meta)
	}
	out = append(out, label)

	body := m.body(rc, w)
	out = append(out, body...)
	for _, a := range m.Attachments {
		out = append(out, FileLine(st, "attached", a, w, rc.Links))
	}
	for _, f := range m.Files {
		if m.Role == RoleAssistant && strings.Contains(m.Text, f) {
			continue // the answer's Files section shows it, as a link
		}
		out = append(out, FileLine(st, "file", f, w, rc.Links))
	}
	if rc.Images && m.Final {
		out = append(out, previews(rc, append(append([]string{}, m.Attachments...), m.Files...), w)...)
	}
	return append(out, "")
}

func (m *Message) body(rc RenderContext, w int) []string {
	st := rc.Styles
	switch m.Role {
	case RoleUser:
		bar := st.UserBar.Render("│") + " "
		var out []string
		for _, l := range WrapPlain(m.Text, w-2) {
			out = append(out, bar+st.UserText.Render(l))
		}
		return out
	case RoleDebug:
		var out []string
		for _, l := range WrapPlain(m.Text, w-2) {
			out = append(out, "  "+st.Dim.Render(l))
		}
		return out
	}
	if strings.TrimSpace(m.Text) == "" {
		if m.Final {
			return nil
		}
		return []string{"  " + st.Dim.Render("…")}
	}
	if rc.Raw {
		var out []string
		for _, l := range WrapPlain(m.Text, w-2) {
			out = append(out, "  "+l)
		}
		return out
	}
	src := m.Text
	if m.Role == RoleAssistant {
		// "<resource>-1" would reach Glamour as an HTML tag and vanish.
		src = text.ShowRefs(src)
	}
	var lines []string
	if m.Final {
		lines = rc.Markdown.Render(src, w)
	} else {
		lines = m.stream.Lines(rc.Markdown, src, w)
	}
	if rc.Links {
		lines = linkPaths(lines, append(append([]string{}, m.Attachments...), m.Files...))
	}
	return lines
}

// Cached returns the lines the last rendering kept and the width they were
// made for (nil while nothing is cached): tests and benchmarks check with it
// that finished messages are not rendered again.
func (m *Message) Cached() (lines []string, width int) { return m.lines, m.cacheWidth }

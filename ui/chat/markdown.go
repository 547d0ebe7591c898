package chat

import (
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/text"
)

// Markdown renders Markdown with Glamour. A TermRenderer is built once per
// wrap width and reused: building one parses the style sheet, which costs
// more than rendering a paragraph.
type Markdown struct {
	style    string
	byWidth  map[int]*glamour.TermRenderer
	disabled bool // Glamour failed to start; fall back to wrapped text
}

// NewMarkdown renders with a Glamour standard style (GlamourStyle picks
// one); "" means dark.
func NewMarkdown(style string) *Markdown {
	if style == "" {
		style = "dark"
	}
	return &Markdown{style: style, byWidth: map[int]*glamour.TermRenderer{}}
}

func (md *Markdown) renderer(width int) *glamour.TermRenderer {
	if r, ok := md.byWidth[width]; ok {
		return r
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(md.style), glamour.WithWordWrap(width),
		glamour.WithPreservedNewLines())
	if err != nil {
		md.disabled = true
		return nil
	}
	if len(md.byWidth) > 8 { // resizing through many widths: keep memory bounded
		clear(md.byWidth)
	}
	md.byWidth[width] = r
	return r
}

// Render returns src rendered for width columns as lines without trailing
// padding and without the blank lines Glamour puts around a document.
func (md *Markdown) Render(src string, width int) []string {
	src = text.Clean(src)
	if width < 10 {
		width = 10
	}
	r := md.renderer(width)
	if r == nil || md.disabled {
		return WrapPlain(src, width)
	}
	out, err := r.Render(src)
	if err != nil {
		return WrapPlain(src, width)
	}
	return trimBlock(strings.Split(out, "\n"))
}

// trimBlock drops the padding Glamour adds: trailing spaces on each line
// (styled ones included) and blank lines at both ends.
func trimBlock(lines []string) []string {
	for i, l := range lines {
		lines[i] = trimRightStyled(l)
	}
	start, end := 0, len(lines)
	for start < end && lines[start] == "" {
		start++
	}
	for end > start && lines[end-1] == "" {
		end--
	}
	return lines[start:end]
}

// trimRightStyled removes trailing blanks from a styled line, keeping the
// styles of what remains.
func trimRightStyled(l string) string {
	plain := ansi.Strip(l)
	trimmed := strings.TrimRight(plain, " \u00a0")
	if trimmed == plain {
		return l
	}
	if trimmed == "" {
		return ""
	}
	return ansi.Truncate(l, ansi.StringWidth(trimmed), "")
}

// streamRender renders a message that is still growing. Markdown blocks
// that are complete (followed by a blank line outside a code fence) never
// change again, so each is rendered once and kept; only the last, growing
// block is rendered again on every frame. The cost of a frame is then that
// of one block, however long the answer and the history are.
type streamRender struct {
	width  int
	blocks []renderedBlock
}

type renderedBlock struct {
	src   string
	lines []string
}

// Lines renders src (the whole message so far).
func (s *streamRender) Lines(md *Markdown, src string, width int) []string {
	if width != s.width {
		s.width, s.blocks = width, nil
	}
	parts := splitBlocks(src)
	var out []string
	for i, p := range parts {
		var lines []string
		last := i == len(parts)-1
		if !last && i < len(s.blocks) && s.blocks[i].src == p {
			lines = s.blocks[i].lines
		} else {
			lines = md.Render(p, width)
			if !last {
				if i < len(s.blocks) {
					s.blocks = s.blocks[:i]
				}
				lines = compactLines(lines)
				s.blocks = append(s.blocks, renderedBlock{src: p, lines: lines})
			}
		}
		if len(out) > 0 && len(lines) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// splitBlocks cuts Markdown at blank lines that are outside code fences.
// Each part holds whole blocks, so rendering the parts one by one matches
// rendering the whole, except for list numbering across parts.
func splitBlocks(src string) []string {
	var parts []string
	var cur strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(src, "\n") {
		t := strings.TrimSpace(line)
		if fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fence = t[:3]
		} else if fence != "" && strings.HasPrefix(t, fence) {
			fence = ""
		}
		if fence == "" && t == "" && strings.HasSuffix(line, "\n") && strings.TrimSpace(cur.String()) != "" {
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	if strings.TrimSpace(cur.String()) != "" || len(parts) == 0 {
		parts = append(parts, cur.String())
	}
	return parts
}

// GlamourStyle picks the Markdown theme: GLAMOUR_STYLE when set, "notty"
// for dumb terminals, else dark.
func GlamourStyle(getenv func(string) string) string {
	if s := getenv("GLAMOUR_STYLE"); s != "" {
		switch s {
		case "dark", "light", "notty", "ascii", "dracula", "pink", "tokyo-night":
			return s
		}
	}
	if getenv("TERM") == "dumb" {
		return "notty"
	}
	return "dark"
}

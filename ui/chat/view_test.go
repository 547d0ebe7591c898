package chat

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/ui/theme"
)

// A long chat keeps the renderings of the messages near the window only:
// the rest are dropped and made again, identical, when the view scrolls back
// to them — so its memory follows its text, not every answer it rendered.
func TestViewKeepsRenderingsNearTheWindow(t *testing.T) {
	st := theme.NewStyles()
	rc := RenderContext{Markdown: NewMarkdown("dark"), Styles: &st, Width: 80}
	const height = 20
	var c View
	for i := 0; i < 60; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "## Answer %d\n\n", i)
		for p := 0; p < 4; p++ {
			b.WriteString(strings.Repeat(fmt.Sprintf("word%d **bold** `code` ", i), 12) + "\n\n")
		}
		c.Add(&Message{Role: RoleAssistant, Text: b.String(), Final: true})
	}
	c.ToTop()
	top := slices.Clone(c.Lines(rc, height))
	// Walk down to the bottom a page at a time, as PgDn does.
	for !c.AtBottom() {
		c.Scroll(-height)
		c.Lines(rc, height)
	}
	rendered, cachedLines := 0, 0
	for _, m := range c.Messages() {
		if lines, _ := m.Cached(); lines != nil {
			rendered++
			cachedLines += len(lines)
		}
	}
	if rendered == 0 || cachedLines > (keepAbove+1)*height+80 {
		t.Fatalf("at the bottom, %d messages (%d lines) keep their rendering; want only those within %d screens",
			rendered, cachedLines, keepAbove+1)
	}
	if first, _ := c.Messages()[0].Cached(); first != nil {
		t.Fatal("the first message, far above the window, kept its rendering")
	}
	c.ToTop()
	if again := c.Lines(rc, height); !slices.Equal(again, top) {
		t.Fatalf("scrolled back to the top, the chat renders differently:\n%s\n---\n%s",
			strings.Join(again, "\n"), strings.Join(top, "\n"))
	}
}

// A finished message keeps one rendering: the blocks cached while it
// streamed are dropped.
func TestFinishedMessageDropsItsStreamCache(t *testing.T) {
	st := theme.NewStyles()
	rc := RenderContext{Markdown: NewMarkdown("dark"), Styles: &st, Width: 100}
	m := &Message{Role: RoleAssistant}
	for i := 0; i < 20; i++ {
		m.Text += fmt.Sprintf("Paragraph %d with *emphasis*.\n\n", i)
		m.Render(rc)
	}
	if len(m.stream.blocks) == 0 {
		t.Fatal("streaming should cache the finished blocks")
	}
	m.Final = true
	lines := m.Render(rc)
	if len(m.stream.blocks) != 0 {
		t.Fatalf("a finished message still holds %d streamed blocks", len(m.stream.blocks))
	}
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	if len(lines) == 0 || size > 60*len(m.Text) {
		t.Fatalf("%d bytes of rendering for %d bytes of text", size, len(m.Text))
	}
}

package chat

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestStreamRenderMatchesWholeRender(t *testing.T) {
	md := NewMarkdown("dark")
	src := "# Title\n\nFirst paragraph with *emphasis*.\n\n```go\nfunc main() {\n\n\tprintln(1)\n}\n```\n\nLast words."
	var sr streamRender
	var lines []string
	for i := 1; i <= len(src); i++ { // every prefix, as tokens arrive
		lines = sr.Lines(md, src[:i], 60)
	}
	whole := md.Render(src, 60)
	if plainLines(lines) != plainLines(whole) {
		t.Errorf("streamed rendering differs from the whole:\n--- streamed\n%s\n--- whole\n%s", plainLines(lines), plainLines(whole))
	}
	parts := splitBlocks(src)
	if len(parts) != 4 || !strings.Contains(parts[2], "\n\n\tprintln") {
		t.Errorf("a blank line inside a code fence must not split it: %q", parts)
	}
}

func plainLines(lines []string) string { return ansi.Strip(strings.Join(lines, "\n")) }

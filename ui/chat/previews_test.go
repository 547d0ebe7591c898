package chat

import (
	"strings"
	"testing"
)

// TestTwoPreviewsDoNotMerge: a turn's two image previews sit side by side
// where they fit, or one under the other with a blank line between —
// never flush, where they would read as one picture.
func TestTwoPreviewsDoNotMerge(t *testing.T) {
	paths := []string{"/tmp/a.png", "/tmp/b.png"}
	thumbs := map[ThumbKey]string{}
	for _, w := range []int{40, 9} {
		thumbs[ThumbKeyFor(paths[0], w, 24)] = "AAAA\nAAAA\n"
		thumbs[ThumbKeyFor(paths[1], w, 24)] = "BB\nBB\nBB\n"
	}
	rc := RenderContext{Thumbs: thumbs, TermHeight: 24}
	got := strings.Join(previews(rc, paths, 40), "|")
	if want := "  AAAA  BB|  AAAA  BB|        BB"; got != want {
		t.Errorf("side by side = %q, want %q", got, want)
	}
	got = strings.Join(previews(rc, paths, 9), "|")
	if want := "  AAAA|  AAAA||  BB|  BB|  BB"; got != want {
		t.Errorf("stacked = %q, want %q", got, want)
	}
}

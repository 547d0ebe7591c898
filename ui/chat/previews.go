package chat

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/skills"
)

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

// ThumbKey identifies a preview: the file and the width it was made for.
type ThumbKey struct {
	Path       string
	Cols, Rows int
}

// thumbSize is the box of an inline preview for a chat of width w on a
// terminal h rows high (cells are about twice as high as wide).
func thumbSize(w, h int) (cols, rows int) {
	rows = thumbRows(h)
	return max(8, min(w-2, rows*4)), rows
}

// ThumbKeyFor identifies path's preview at the current size.
func ThumbKeyFor(path string, w, h int) ThumbKey {
	c, r := thumbSize(w, h)
	return ThumbKey{path, c, r}
}

// PreviewPaths returns the images among paths that get an inline preview
// (two at most, so a turn with many images stays readable).
func PreviewPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if len(out) == 2 {
			break
		}
		if kindOf(p) == skills.Image && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// previews returns the inline previews of the images among paths that
// have been made; the rest appear once their thumbMsg arrives. Two
// previews sit side by side where they fit, else one under the other with
// a blank line between: stacked flush, two pictures read as one.
func previews(rc RenderContext, paths []string, w int) []string {
	var blocks [][]string
	for _, p := range PreviewPaths(paths) {
		s := rc.Thumbs[ThumbKeyFor(p, w, rc.TermHeight)]
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
			out = append(out, "  "+PadRight(l, lw)+gap+r)
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

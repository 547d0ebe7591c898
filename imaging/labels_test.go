package imaging

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/chorusai/chorus/internal/testkit"
)

// TestLabelsAreNotTruncated: a label that names a box ("yellow box",
// "cardboard box") keeps its last word when read from text, while words
// that only introduce the box ("at", "bbox", "bounding box") still go.
func TestLabelsAreNotTruncated(t *testing.T) {
	for in, want := range map[string]string{
		"yellow box: [10,10,50,50]":                 "yellow box",
		"- cardboard box (0.91) [1,2,3,4]":          "cardboard box",
		"box [1,2,3,4]":                             "object",
		"cat: box [1,2,3,4]":                        "cat",
		"dog bbox [1,2,3,4]":                        "dog",
		"cup bounding box at [1,2,3,4]":             "cup",
		"the red box located at [1,2,3,4]":          "the red box",
		"2 objects: yellow box (0.98) at [1,2,3,4]": "yellow box",
	} {
		got := parseDetectionsText(in)
		if len(got) != 1 || got[0].Label != want {
			t.Errorf("%q → %+v, want label %q", in, got, want)
		}
	}
}

// TestTagLinesKeepTheWholeLabel: a label too wide for the image drops its
// score, then wraps at spaces; the words are all there, none cut short.
func TestTagLinesKeepTheWholeLabel(t *testing.T) {
	cases := []struct {
		label, score string
		width        int
		want         []string
	}{
		{"yellow box", "0.98", 40, []string{"yellow box 0.98"}},
		{"yellow box", "0.98", 12, []string{"yellow box"}},
		{"yellow box", "0.98", 7, []string{"yellow", "box"}},
		{"refrigerator door", "", 6, []string{"refrig", "erator", "door"}},
		{"", "0.50", 10, []string{"0.50"}},
	}
	for _, c := range cases {
		if got := tagLines(c.label, c.score, c.width); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("tagLines(%q, %q, %d) = %q, want %q", c.label, c.score, c.width, got, c.want)
		}
	}
}

// TestDrawnTagHoldsTheWholeLabel: on an image too narrow for "yellow box
// 0.98", the tag's text pixels are exactly the glyphs of "yellow box" —
// the whole label, not "yellow" — drawn at the box's top-left.
func TestDrawnTagHoldsTheWholeLabel(t *testing.T) {
	grey := color.RGBA{128, 128, 128, 255}
	src := testkit.RectImage(63, 60, image.Rectangle{}, grey, grey) // 8 characters wide: the label wraps
	out, _ := DrawDetections(src, []Detection{{"yellow box", 0.98, [4]float64{0, 30, 63, 60}}})
	col := palette[0]
	fg := textColour(col)
	want := glyphPixels("yellow box")
	got := 0
	for y := 0; y < 60; y++ {
		for x := 0; x < 63; x++ {
			if out.RGBAAt(x, y) == fg {
				got++
			}
		}
	}
	if got != want || want == glyphPixels("yellow") {
		t.Errorf("the tag has %d text pixels; %q has %d (and %q %d)", got, "yellow box", want, "yellow", glyphPixels("yellow"))
	}
}

// glyphPixels counts the pixels the bitmap font sets for s.
func glyphPixels(s string) int {
	face := basicfont.Face7x13
	img := image.NewAlpha(image.Rect(0, 0, len(s)*face.Advance+4, face.Height+4))
	d := font.Drawer{Dst: img, Src: image.Opaque, Face: face, Dot: fixed.P(2, 2+face.Ascent)}
	d.DrawString(s)
	n := 0
	for _, a := range img.Pix {
		if a >= 0x80 {
			n++
		}
	}
	return n
}

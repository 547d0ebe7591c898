package imaging

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

func TestOverlayMasksTintsOnlyMaskedPixels(t *testing.T) {
	src := testkit.GradientImage(200, 150)
	mask := testkit.CircleMask(200, 150, 80, 70, 40)
	out, cover := OverlayMasks(src, []Mask{{Score: math.NaN(), Image: mask}})
	inside := 0
	for y := range 150 {
		for x := range 200 {
			in := mask.GrayAt(x, y).Y != 0
			if in {
				inside++
			}
			if in != testkit.Changed(src, out, x, y) {
				t.Fatalf("pixel (%d,%d): inside mask %v, testkit.Changed %v", x, y, in, !in)
			}
		}
	}
	if want := float64(inside) / (200 * 150); math.Abs(cover[0]-want) > 1e-9 {
		t.Errorf("cover %f, want %f", cover[0], want)
	}
	// Tinted, not painted over: the centre keeps some of the picture and
	// moves toward the overlay colour.
	c, s, col := out.RGBAAt(80, 70), src.RGBAAt(80, 70), palette[0]
	if c == col || (int(c.R)-int(s.R))*(int(col.R)-int(s.R)) <= 0 {
		t.Errorf("centre %v from %v with colour %v: not a translucent tint", c, s, col)
	}
	// The outline is solid colour on the mask's edge.
	if got := out.RGBAAt(80, 70-40); got != col {
		t.Errorf("top of the disc is %v, want the outline colour %v", got, col)
	}
}

func TestOverlayMasksScalesAndColoursEachSegment(t *testing.T) {
	src := testkit.RectImage(200, 100, image.Rectangle{}, color.White, color.RGBA{128, 128, 128, 255})
	left := testkit.RectImage(100, 50, image.Rect(0, 0, 50, 50), color.White, color.Black)       // half size
	right := testkit.RectImage(200, 100, image.Rect(100, 0, 200, 100), color.White, color.Black) // full size, RGBA
	out, cover := OverlayMasks(src, []Mask{{Label: "sky", Score: 0.9, Image: left}, {Label: "sea", Score: math.NaN(), Image: right}})
	if math.Abs(cover[0]-0.5) > 0.01 || math.Abs(cover[1]-0.5) > 0.01 {
		t.Errorf("covers %v, want half each", cover)
	}
	a, b := out.RGBAAt(50, 80), out.RGBAAt(150, 80)
	if a == b || a == src.RGBAAt(50, 80) || b == src.RGBAAt(150, 80) {
		t.Errorf("segments tinted %v and %v; want two distinct tints", a, b)
	}
}

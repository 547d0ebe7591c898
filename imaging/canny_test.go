package imaging

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

func TestCannyFindsRectangleEdges(t *testing.T) {
	r := image.Rect(50, 40, 150, 110)
	img := testkit.RectImage(200, 150, r, color.White, color.Black)
	edges := Canny(img, CannyLow, CannyHigh)
	if edges.Bounds() != img.Bounds() {
		t.Fatalf("edge map is %v, want the input's %v", edges.Bounds(), img.Bounds())
	}
	count := 0
	for y := range 150 {
		for x := range 200 {
			v := edges.GrayAt(x, y).Y
			if v != 0 && v != 255 {
				t.Fatalf("pixel (%d,%d) = %d; an edge map is black and white only", x, y, v)
			}
			if v == 255 {
				count++
				if d := testkit.RectDist(x, y, r); d > 2 {
					t.Errorf("edge at (%d,%d), %d px from the rectangle's border, in a flat region", x, y, d)
				}
			}
		}
	}
	// Every point of the border must have an edge pixel next to it.
	missed, perimeter := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if testkit.RectDist(x, y, r) != 0 {
				continue
			}
			perimeter++
			found := false
			for dy := -2; dy <= 2 && !found; dy++ {
				for dx := -2; dx <= 2 && !found; dx++ {
					found = edges.GrayAt(x+dx, y+dy).Y == 255
				}
			}
			if !found {
				missed++
			}
		}
	}
	if missed*100 > perimeter*3 {
		t.Errorf("%d of %d border pixels have no edge nearby", missed, perimeter)
	}
	// Non-maximum suppression keeps the edges thin: about one pixel per
	// border pixel, not a thick band.
	if count > perimeter*3/2 || count < perimeter*3/4 {
		t.Errorf("%d edge pixels for a %d-pixel border; want a thin, closed outline", count, perimeter)
	}
}

func TestCannyFlatAndThresholds(t *testing.T) {
	flat := testkit.RectImage(64, 48, image.Rectangle{}, color.White, color.Gray{0x80})
	if n := countNonZero(Canny(flat, CannyLow, CannyHigh).Pix); n != 0 {
		t.Errorf("flat image gave %d edge pixels", n)
	}
	img := testkit.RectImage(64, 48, image.Rect(16, 12, 48, 36), color.Gray{0x90}, color.Gray{0x70})
	// A faint step: the gradient is below the default thresholds but well
	// above lower ones.
	if n := countNonZero(Canny(img, CannyLow, CannyHigh).Pix); n != 0 {
		t.Errorf("faint step gave %d edge pixels at 100/200; want none", n)
	}
	if n := countNonZero(Canny(img, 20, 40).Pix); n < 80 {
		t.Errorf("faint step gave %d edge pixels at 20/40; want its outline", n)
	}
	// Reversed thresholds are put in order rather than finding nothing.
	if a, b := countNonZero(Canny(img, 40, 20).Pix), countNonZero(Canny(img, 20, 40).Pix); a != b {
		t.Errorf("thresholds 40/20 gave %d edge pixels, 20/40 gave %d", a, b)
	}
}

func TestCannyHysteresisFollowsWeakEdges(t *testing.T) {
	// Left half of the step is strong, right half weak: hysteresis carries
	// the edge from the strong part along the weak part, but a weak edge
	// with no strong part is dropped.
	img := image.NewGray(image.Rect(0, 0, 120, 60))
	for y := range 60 {
		for x := range 120 {
			v := uint8(0)
			if y >= 30 {
				v = 120 // weak step
				if x < 60 {
					v = 255 // strong step
				}
			}
			img.SetGray(x, y, color.Gray{v})
		}
	}
	weakOnly := image.NewGray(image.Rect(0, 0, 120, 60))
	for y := 30; y < 60; y++ {
		for x := range 120 {
			weakOnly.SetGray(x, y, color.Gray{120})
		}
	}
	low, high := 150.0, 600.0
	edges := Canny(img, low, high)
	rowHas := func(g *image.Gray, x0, x1 int) bool {
		for x := x0; x < x1; x++ {
			for y := 27; y <= 32; y++ {
				if g.GrayAt(x, y).Y == 255 {
					return true
				}
			}
		}
		return false
	}
	if !rowHas(edges, 80, 110) {
		t.Error("weak edge connected to a strong one was dropped")
	}
	if rowHas(Canny(weakOnly, low, high), 10, 110) {
		t.Error("weak edge with no strong part was kept")
	}
}

func countNonZero(p []uint8) int {
	n := 0
	for _, v := range p {
		if v != 0 {
			n++
		}
	}
	return n
}

func TestCannySameForEveryPixelLayout(t *testing.T) {
	src := testkit.RectImage(80, 60, image.Rect(20, 15, 60, 45), color.RGBA{200, 200, 200, 255}, color.RGBA{10, 10, 10, 255})
	gray := image.NewGray(src.Bounds())
	draw.Draw(gray, gray.Bounds(), src, image.Point{}, draw.Src)
	nrgba := image.NewNRGBA(src.Bounds())
	draw.Draw(nrgba, nrgba.Bounds(), src, image.Point{}, draw.Src)
	ycc := image.NewYCbCr(src.Bounds(), image.YCbCrSubsampleRatio444)
	for y := range 60 {
		for x := range 80 {
			c := src.RGBAAt(x, y)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			ycc.Y[ycc.YOffset(x, y)], ycc.Cb[ycc.COffset(x, y)], ycc.Cr[ycc.COffset(x, y)] = yy, cb, cr
		}
	}
	// A sub-image has a non-zero origin.
	big := image.NewRGBA(image.Rect(0, 0, 100, 80))
	draw.Draw(big, image.Rect(10, 10, 90, 70), src, image.Point{}, draw.Src)
	sub := big.SubImage(image.Rect(10, 10, 90, 70))
	want := Canny(src, CannyLow, CannyHigh)
	for name, img := range map[string]image.Image{"gray": gray, "nrgba": nrgba, "ycbcr": ycc, "subimage": sub, "paletted": toPaletted(src)} {
		got := Canny(img, CannyLow, CannyHigh)
		if got.Bounds() != want.Bounds() {
			t.Errorf("%s: bounds %v, want %v", name, got.Bounds(), want.Bounds())
			continue
		}
		if diff := diffCount(got.Pix, want.Pix); diff > 4 {
			t.Errorf("%s: %d pixels differ from the RGBA result", name, diff)
		}
	}
}

func toPaletted(img image.Image) *image.Paletted {
	p := image.NewPaletted(img.Bounds(), color.Palette{color.Black, color.RGBA{10, 10, 10, 255}, color.RGBA{200, 200, 200, 255}, color.White})
	draw.Draw(p, p.Bounds(), img, img.Bounds().Min, draw.Src)
	return p
}

func diffCount(a, b []uint8) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

func BenchmarkCanny1024(b *testing.B) {
	img := testkit.GradientImage(1024, 1024)
	draw.Draw(img, image.Rect(200, 300, 800, 700), image.White, image.Point{}, draw.Src)
	b.ReportAllocs()
	b.SetBytes(1024 * 1024)
	for b.Loop() {
		Canny(img, CannyLow, CannyHigh)
	}
}

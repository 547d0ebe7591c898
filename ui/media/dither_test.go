package media

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/sixel"
)

// gradient is a smooth picture with far more than 256 colours: the case
// where a sixel encoder must choose a palette, and where banding shows.
func gradient(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, color.RGBA{uint8(x * 255 / (w - 1)), uint8(y * 255 / (h - 1)), uint8((x + y) * 255 / (w + h - 2)), 255})
		}
	}
	return m
}

// drawn is what a terminal shows for a sixel sequence, decoded by the
// tests' strict decoder. (x/ansi's decoder is not used: it reads the
// sixels after a "!n" repeat as part of the repeat and loses them.)
func drawn(t *testing.T, seq string) image.Image {
	t.Helper()
	im := decodeSixel(t, seq)
	out := image.NewRGBA(image.Rect(0, 0, im.raster[2], im.raster[3]))
	for p, reg := range im.pix {
		c := im.regs[reg]
		out.SetRGBA(p[0], p[1], color.RGBA{uint8(c[0] * 255 / 100), uint8(c[1] * 255 / 100), uint8(c[2] * 255 / 100), 255})
	}
	return out
}

// seenError is the mean squared error per channel between a and b as the
// eye sees them at a distance: both blurred over 5×5 pixels first, which
// is what dithering trades on (single pixels are off, areas are right).
// With blur 0 it is the plain per-pixel error.
func seenError(a, b image.Image, blur int) float64 {
	bd := a.Bounds()
	var sum float64
	var n int
	for y := bd.Min.Y + blur; y < bd.Max.Y-blur; y++ {
		for x := bd.Min.X + blur; x < bd.Max.X-blur; x++ {
			var ca, cb [3]float64
			for dy := -blur; dy <= blur; dy++ {
				for dx := -blur; dx <= blur; dx++ {
					r1, g1, b1, _ := a.At(x+dx, y+dy).RGBA()
					r2, g2, b2, _ := b.At(x+dx, y+dy).RGBA()
					ca[0], ca[1], ca[2] = ca[0]+float64(r1>>8), ca[1]+float64(g1>>8), ca[2]+float64(b1>>8)
					cb[0], cb[1], cb[2] = cb[0]+float64(r2>>8), cb[1]+float64(g2>>8), cb[2]+float64(b2>>8)
				}
			}
			k := float64((2*blur + 1) * (2*blur + 1))
			for i := range 3 {
				d := (ca[i] - cb[i]) / k
				sum += d * d
			}
			n += 3
		}
	}
	return sum / float64(n)
}

// TestSixelDitheringBeatsTheLibrary is why encodeSixel keeps its own
// quantiser instead of x/ansi's sixel encoder: on a smooth gradient the
// library maps every pixel to its nearest palette colour, which bands;
// median cut with Floyd–Steinberg dithering keeps areas the right colour.
// Both encodings are decoded by x/ansi's decoder and compared with the
// original as seen at a distance (5×5 blur).
func TestSixelDitheringBeatsTheLibrary(t *testing.T) {
	src := gradient(160, 96)
	ours := drawn(t, encodeSixel(src))
	var lib bytes.Buffer
	if err := (&sixel.Encoder{}).Encode(&lib, src); err != nil {
		t.Fatal(err)
	}
	theirs := drawn(t, ansi.SixelGraphics(0, 1, 0, lib.Bytes()))
	oursSeen, theirsSeen := seenError(src, ours, 2), seenError(src, theirs, 2)
	oursRaw, theirsRaw := seenError(src, ours, 0), seenError(src, theirs, 0)
	t.Logf("mean squared error per channel, seen (5×5): ours %.2f, x/ansi %.2f; per pixel: ours %.2f, x/ansi %.2f",
		oursSeen, theirsSeen, oursRaw, theirsRaw)
	if oursSeen >= theirsSeen {
		t.Fatalf("dithering is not better than x/ansi's encoder (%.2f ≥ %.2f): use the library's", oursSeen, theirsSeen)
	}
}

// BenchmarkSixelEncoders compares the cost of the two encoders on the
// same gradient.
func BenchmarkSixelEncoders(b *testing.B) {
	src := gradient(320, 192)
	b.Run("ours", func(b *testing.B) {
		for b.Loop() {
			_ = encodeSixel(src)
		}
	})
	b.Run("x-ansi", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			_ = (&sixel.Encoder{}).Encode(&buf, src)
		}
	})
}

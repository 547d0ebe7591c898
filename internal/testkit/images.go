package testkit

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// RectImage returns a w×h image of bg with r filled with fg.
func RectImage(w, h int, r image.Rectangle, fg, bg color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	draw.Draw(img, r, image.NewUniform(fg), image.Point{}, draw.Src)
	return img
}

// GradientImage returns a w×h image whose every pixel differs from its
// neighbours, so any change a tool makes is visible.
func GradientImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 255 / max(w-1, 1)), uint8(y * 255 / max(h-1, 1)), 90, 255})
		}
	}
	return img
}

// CircleMask is a w×h mask with a white disc of radius r at (cx, cy).
func CircleMask(w, h, cx, cy, r int) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r {
				m.SetGray(x, y, color.Gray{255})
			}
		}
	}
	return m
}

// WriteImage encodes img as format (png, jpeg, gif, bmp, tiff) into dir
// and returns the path. It uses the standard encoders, not Chorus's, so
// a test of Chorus's codec does not read back its own mistakes.
func WriteImage(t testing.TB, dir, name string, img image.Image, format string) string {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg", "jpg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92})
	case "gif":
		err = gif.Encode(&buf, img, nil)
	case "bmp":
		err = bmp.Encode(&buf, img)
	case "tiff":
		err = tiff.Encode(&buf, img, nil)
	default:
		t.Fatalf("WriteImage: no encoder for %q", format)
	}
	if err != nil {
		t.Fatalf("encode %s: %v", format, err)
	}
	return WriteFile(t, dir, name, buf.Bytes())
}

// PNGWithSize returns a valid PNG whose header claims w×h, with the header
// checksum fixed, so the decoder reads the dimensions the test wants.
func PNGWithSize(t testing.TB, w, h uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	// Signature (8) + length (4) + "IHDR" (4), then width and height.
	binary.BigEndian.PutUint32(data[16:], w)
	binary.BigEndian.PutUint32(data[20:], h)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	return data
}

// RectDist is how far (x, y) is from the outline of r, in pixels
// (Chebyshev), counting the first and last rows and columns of r as the
// outline.
func RectDist(x, y int, r image.Rectangle) int {
	in := image.Pt(x, y).In(r)
	if in {
		return min(x-r.Min.X, r.Max.X-1-x, y-r.Min.Y, r.Max.Y-1-y)
	}
	dx := max(r.Min.X-x, x-(r.Max.X-1), 0)
	dy := max(r.Min.Y-y, y-(r.Max.Y-1), 0)
	return max(dx, dy)
}

// Changed reports whether pixel (x, y) differs between a and b.
func Changed(a, b image.Image, x, y int) bool {
	r1, g1, b1, a1 := a.At(x, y).RGBA()
	r2, g2, b2, a2 := b.At(x, y).RGBA()
	return r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2
}

// LabelLineHeight is the height of one line of a box's label tag: the
// 7×13 bitmap font the image library draws labels with.
const LabelLineHeight = 13

// CheckBoxDrawn asserts that every pixel on box's outline changed and no
// pixel more than slack pixels from it did, apart from the label tag band
// of lines lines (above the box, or inside its top when there is no room).
func CheckBoxDrawn(t testing.TB, src, out image.Image, box image.Rectangle, slack, lines int) {
	t.Helper()
	b := src.Bounds()
	box = box.Intersect(b)
	tagH := lines*LabelLineHeight + 4
	tag := image.Rect(box.Min.X-b.Dx(), box.Min.Y-tagH, b.Max.X, box.Min.Y)
	if box.Min.Y-tagH < 0 {
		tag = image.Rect(0, box.Min.Y, b.Max.X, box.Min.Y+tagH)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			d := RectDist(x, y, box)
			switch {
			case d == 0 && !Changed(src, out, x, y):
				t.Fatalf("box border pixel (%d,%d) unchanged", x, y)
			case d > slack && Changed(src, out, x, y) && !image.Pt(x, y).In(tag):
				t.Fatalf("pixel (%d,%d), %d px from the box, changed", x, y, d)
			}
		}
	}
}

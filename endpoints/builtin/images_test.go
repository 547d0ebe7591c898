package builtin

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chorusai/chorus/imaging"
)

// rectImage returns a w×h image of bg with r filled with fg.
func rectImage(w, h int, r image.Rectangle, fg, bg color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	draw.Draw(img, r, image.NewUniform(fg), image.Point{}, draw.Src)
	return img
}

// gradientImage returns a w×h image whose every pixel differs from its
// neighbours, so any change a tool makes is visible.
func gradientImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 255 / max(w-1, 1)), uint8(y * 255 / max(h-1, 1)), 90, 255})
		}
	}
	return img
}

// writeImage encodes img as format into dir and returns the path.
func writeImage(t testing.TB, dir, name string, img image.Image, format string) string {
	t.Helper()
	blob, err := imaging.Encode(img, format)
	if err != nil {
		t.Fatalf("encode %s: %v", format, err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, blob.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFile writes data into dir and returns the path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pngWithSize returns a valid PNG whose header claims w×h, with the header
// checksum fixed, so the decoder reads the dimensions the test wants.
func pngWithSize(t testing.TB, w, h uint32) []byte {
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

// rectDist is how far (x, y) is from the outline of r, in pixels
// (Chebyshev), counting the first and last rows and columns of r as the
// outline.
func rectDist(x, y int, r image.Rectangle) int {
	in := image.Pt(x, y).In(r)
	if in {
		return min(x-r.Min.X, r.Max.X-1-x, y-r.Min.Y, r.Max.Y-1-y)
	}
	dx := max(r.Min.X-x, x-(r.Max.X-1), 0)
	dy := max(r.Min.Y-y, y-(r.Max.Y-1), 0)
	return max(dx, dy)
}

// changed reports whether pixel (x, y) differs between a and b.
func changed(a, b image.Image, x, y int) bool {
	r1, g1, b1, a1 := a.At(x, y).RGBA()
	r2, g2, b2, a2 := b.At(x, y).RGBA()
	return r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2
}

// checkBoxDrawn asserts that every pixel on box's outline changed and no
// pixel more than slack pixels from it did, apart from the label tag band
// (above the box, or inside its top when there is no room).
func checkBoxDrawn(t *testing.T, src, out image.Image, box image.Rectangle, slack int) {
	t.Helper()
	b := src.Bounds()
	box = box.Intersect(b)
	tagH := 13 + 4
	tag := image.Rect(box.Min.X-b.Dx(), box.Min.Y-tagH, b.Max.X, box.Min.Y)
	if box.Min.Y-tagH < 0 {
		tag = image.Rect(0, box.Min.Y, b.Max.X, box.Min.Y+tagH)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			d := rectDist(x, y, box)
			switch {
			case d == 0 && !changed(src, out, x, y):
				t.Fatalf("box border pixel (%d,%d) unchanged", x, y)
			case d > slack && changed(src, out, x, y) && !image.Pt(x, y).In(tag):
				t.Fatalf("pixel (%d,%d), %d px from the box, changed", x, y, d)
			}
		}
	}
}

// circleMask is a w×h mask with a white disc of radius r at (cx, cy).
func circleMask(w, h, cx, cy, r int) *image.Gray {
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

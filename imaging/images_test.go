package imaging

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
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
	blob, err := Encode(img, format)
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

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pngBase64(t *testing.T, img image.Image) string {
	t.Helper()
	b, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Data)
}

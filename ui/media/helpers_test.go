package media

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// halves returns a w×h image, red on the left half and blue on the right,
// with a little deterministic noise so that its PNG is not tiny.
func halves(w, h int) *image.RGBA {
	rng := rand.New(rand.NewPCG(1, 2))
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(6))
			if x < w/2 {
				m.SetRGBA(x, y, color.RGBA{250 - n, n, n, 255})
			} else {
				m.SetRGBA(x, y, color.RGBA{n, n, 250 - n, 255})
			}
		}
	}
	return m
}

func writePNG(t testing.TB, m image.Image) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "img.png", buf.Bytes())
}

func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func near(a, b uint8, tol int) bool {
	d := int(a) - int(b)
	return d <= tol && -d <= tol
}

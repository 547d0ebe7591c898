package media

import "testing"

// BenchmarkRender measures a typical generated image (1024×1024) fitted to
// an 80×24 terminal with each protocol, decoding included.
func BenchmarkRender(b *testing.B) {
	path := writePNG(b, halves(1024, 1024))
	for _, p := range []Protocol{HalfBlocks, Kitty, ITerm2, Sixel} {
		b.Run(p.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := Render(path, p, 80, 24); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

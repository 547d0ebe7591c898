package media

import (
	"image"
	"math"

	"golang.org/x/image/draw"
)

// The cell size assumed when the real one is unknown. Terminal cells are
// about twice as tall as they are wide; 10×20 pixels is a common size and,
// more importantly, has the right shape.
const (
	DefaultCellWidth  = 10
	DefaultCellHeight = 20
)

// maxCells bounds a drawing box so that a silly size cannot allocate
// gigabytes.
const maxCells = 1000

// Fit returns the size in cells, c×r, at which an imgW×imgH-pixel image is
// shown in a box of cols×rows cells: as large as fits, aspect ratio kept
// (cells ≈ 1:2), never enlarged beyond its natural size at 10×20 pixels a
// cell, and at least 1×1. Kitty, iTerm2 and sixel draw into exactly this
// size, so the caller can lay out the screen before rendering; half-blocks
// use FitBlocks.
func Fit(imgW, imgH, cols, rows int) (c, r int) {
	c, r, _, _ = fit(imgW, imgH, cols, rows, DefaultCellWidth, DefaultCellHeight)
	return c, r
}

// fit returns the cell size c×r and the pixel size pw×ph at which to draw.
func fit(imgW, imgH, cols, rows, cellW, cellH int) (c, r, pw, ph int) {
	cols, rows = clamp(cols, 1, maxCells), clamp(rows, 1, maxCells)
	if imgW <= 0 || imgH <= 0 {
		return 1, 1, 1, 1
	}
	s := math.Min(1, math.Min(float64(cols*cellW)/float64(imgW), float64(rows*cellH)/float64(imgH)))
	w, h := float64(imgW)*s, float64(imgH)*s
	c = clamp(int(math.Round(w/float64(cellW))), 1, cols)
	r = clamp(int(math.Round(h/float64(cellH))), 1, rows)
	pw = clamp(int(math.Round(w)), 1, cols*cellW)
	ph = clamp(int(math.Round(h)), 1, rows*cellH)
	return c, r, pw, ph
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// scale returns img resampled to w×h pixels as RGBA. Bilinear filtering in
// x/image/draw widens its kernel when shrinking, so downscaled previews are
// smooth rather than aliased.
func scale(img image.Image, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	b := img.Bounds()
	if b.Dx() == w && b.Dy() == h {
		draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
		return dst
	}
	draw.BiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// straight returns the un-premultiplied colour of pixel (x, y) of m and
// whether it counts as opaque (alpha ≥ 50%). Terminals cannot blend, so a
// pixel is either drawn in full or left to the background.
func straight(m *image.RGBA, x, y int) (r, g, b uint8, opaque bool) {
	i := m.PixOffset(x, y)
	p := m.Pix[i : i+4 : i+4]
	a := p[3]
	if a < 128 {
		return 0, 0, 0, false
	}
	if a == 255 {
		return p[0], p[1], p[2], true
	}
	un := func(v uint8) uint8 { return uint8(min(255, (int(v)*255+int(a)/2)/int(a))) }
	return un(p[0]), un(p[1]), un(p[2]), true
}

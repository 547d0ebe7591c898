package demogif

import (
	"image"
	"image/draw"
	"math"

	"golang.org/x/image/vector"
)

// icon draws, as vector shapes, the symbols Chorus's UI uses that Go Mono
// lacks (check marks, crosses, the skipped and cancelled marks, the replay
// triangle, the stopwatch, the file arrow), so the GIF shows them rather
// than boxes. It reports whether it knew r.
//
// Shapes are laid out on a square the cell's width on a side, centred
// between the baseline and the cap height, where a glyph would sit.
func (g *glyphs) icon(m *image.Alpha, r rune, bold bool) bool {
	w := float64(m.Bounds().Dx())
	side := float64(g.cw)
	ox := (w - side) / 2
	oy := float64(g.ascent) - 0.36*float64(g.ch) - side/2
	pt := func(x, y float64) (float32, float32) { return float32(ox + x*side), float32(oy + y*side) }
	stroke := max(1.2, side/7)
	if bold || r == '✔' || r == '✘' {
		stroke *= 1.5
	}
	z := vector.NewRasterizer(m.Bounds().Dx(), m.Bounds().Dy())
	line := func(x0, y0, x1, y1 float64) {
		ax, ay := pt(x0, y0)
		bx, by := pt(x1, y1)
		dx, dy := bx-ax, by-ay
		n := float32(math.Hypot(float64(dx), float64(dy)))
		if n == 0 {
			return
		}
		// Half the stroke across the segment, and half along it so
		// joined segments meet without notches.
		hw := float32(stroke / 2)
		nx, ny := -dy/n*hw, dx/n*hw
		ex, ey := dx/n*hw, dy/n*hw
		z.MoveTo(ax-ex+nx, ay-ey+ny)
		z.LineTo(bx+ex+nx, by+ey+ny)
		z.LineTo(bx+ex-nx, by+ey-ny)
		z.LineTo(ax-ex-nx, ay-ey-ny)
		z.ClosePath()
	}
	circle := func(cx, cy, rad float64, clockwise bool) {
		const n = 36
		for i := 0; i <= n; i++ {
			a := 2 * math.Pi * float64(i) / n
			if !clockwise {
				a = -a
			}
			x, y := pt(cx+rad*math.Cos(a), cy+rad*math.Sin(a))
			if i == 0 {
				z.MoveTo(x, y)
			} else {
				z.LineTo(x, y)
			}
		}
		z.ClosePath()
	}
	ring := func(cx, cy, rad float64) {
		half := stroke / 2 / side
		circle(cx, cy, rad+half, true)
		circle(cx, cy, rad-half, false)
	}
	triangle := func(x0, y0, x1, y1, x2, y2 float64) {
		z.MoveTo(pt(x0, y0))
		z.LineTo(pt(x1, y1))
		z.LineTo(pt(x2, y2))
		z.ClosePath()
	}
	switch r {
	case '✓', '✔':
		line(0.1, 0.55, 0.38, 0.85)
		line(0.38, 0.85, 0.92, 0.12)
	case '✗', '✘':
		line(0.15, 0.15, 0.85, 0.85)
		line(0.85, 0.15, 0.15, 0.85)
	case '⊘':
		ring(0.5, 0.5, 0.42)
		line(0.2, 0.8, 0.8, 0.2)
	case '⊝':
		ring(0.5, 0.5, 0.42)
		line(0.28, 0.5, 0.72, 0.5)
	case '▶':
		triangle(0.1, 0.05, 0.95, 0.5, 0.1, 0.95)
	case '▸':
		triangle(0.2, 0.2, 0.85, 0.5, 0.2, 0.8)
	case '⏱':
		ring(0.5, 0.58, 0.38)
		line(0.5, 0.58, 0.5, 0.36)
		line(0.38, 0.05, 0.62, 0.05)
		line(0.5, 0.05, 0.5, 0.18)
	case '↳':
		line(0.22, -0.1, 0.22, 0.65)
		line(0.22, 0.65, 0.85, 0.65)
		triangle(0.6, 0.4, 0.98, 0.65, 0.6, 0.9)
	default:
		return false
	}
	z.Draw(m, m.Bounds(), image.Opaque, image.Point{})
	return true
}

// iconOrTofu draws r as an icon, or as the hollow box a terminal shows for
// a character its font lacks.
func (g *glyphs) iconOrTofu(m *image.Alpha, r rune, bold bool) {
	if g.icon(m, r, bold) {
		return
	}
	draw.Draw(m, m.Bounds(), image.Transparent, image.Point{}, draw.Src)
	tofu(m, g.cw/8+1)
	g.missing[r]++
}

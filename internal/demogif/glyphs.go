package demogif

import (
	"fmt"
	"image"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// glyphs draws runes as alpha masks one or two cells wide, from the Go Mono
// fonts, and draws the box-drawing, block and braille characters itself so
// that lines join from cell to cell the way a terminal shows them.
type glyphs struct {
	faces  [4]font.Face // regular, bold, italic, bold italic
	fonts  [4]*sfnt.Font
	buf    sfnt.Buffer
	cw, ch int // cell size in pixels
	ascent int
	cache  map[glyphKey]*image.Alpha
	// missing counts the runes drawn as hollow boxes, so a renderer can
	// say which characters Go Mono lacks.
	missing map[rune]int
}

type glyphKey struct {
	r     rune
	style uint8 // index into faces
	wide  bool
}

func newGlyphs(size, lineHeight float64) (*glyphs, error) {
	g := &glyphs{cache: map[glyphKey]*image.Alpha{}, missing: map[rune]int{}}
	for i, ttf := range [][]byte{gomono.TTF, gomonobold.TTF, gomonoitalic.TTF, gomonobolditalic.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("parse Go Mono: %w", err)
		}
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return nil, fmt.Errorf("Go Mono at %.0f px: %w", size, err)
		}
		g.fonts[i], g.faces[i] = f, face
	}
	m := g.faces[0].Metrics()
	adv, _ := g.faces[0].GlyphAdvance('M')
	g.cw = adv.Ceil()
	natural := (m.Ascent + m.Descent).Ceil()
	g.ch = int(math.Round(float64(natural) * lineHeight))
	// Centre the line's natural height in a taller (or shorter) cell.
	g.ascent = m.Ascent.Ceil() + (g.ch-natural)/2
	return g, nil
}

// mask returns the alpha mask of r in the given style, one cell wide or
// two when wide.
func (g *glyphs) mask(r rune, style uint8, wide bool) *image.Alpha {
	k := glyphKey{r, style, wide}
	if m, ok := g.cache[k]; ok {
		return m
	}
	w := g.cw
	if wide {
		w *= 2
	}
	m := image.NewAlpha(image.Rect(0, 0, w, g.ch))
	if !g.drawn(m, r, style) {
		f := style
		if x, _ := g.fonts[f].GlyphIndex(&g.buf, r); x == 0 {
			f = 0
		}
		if x, _ := g.fonts[f].GlyphIndex(&g.buf, r); x == 0 {
			g.iconOrTofu(m, r, style&1 != 0)
		} else {
			d := font.Drawer{Dst: m, Src: image.Opaque, Face: g.faces[f], Dot: fixed.P(0, g.ascent)}
			if wide {
				// Centre a narrow glyph in a wide cell.
				adv, _ := g.faces[f].GlyphAdvance(r)
				d.Dot.X = fixed.I(w/2) - adv/2
			}
			d.DrawString(string(r))
		}
	}
	g.cache[k] = m
	return m
}

func tofu(m *image.Alpha, inset int) {
	b := m.Bounds().Inset(inset)
	for x := b.Min.X; x < b.Max.X; x++ {
		m.Pix[m.PixOffset(x, b.Min.Y)] = 0xa0
		m.Pix[m.PixOffset(x, b.Max.Y-1)] = 0xa0
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		m.Pix[m.PixOffset(b.Min.X, y)] = 0xa0
		m.Pix[m.PixOffset(b.Max.X-1, y)] = 0xa0
	}
}

// Arm weights of a box-drawing character.
const (
	none = iota
	light
	heavy
	double
)

// box lists the box-drawing characters drawn by hand: the weight of the
// arm going up, right, down and left from the cell's centre.
var box = map[rune][4]uint8{
	'─': {0, 1, 0, 1}, '│': {1, 0, 1, 0}, '┌': {0, 1, 1, 0}, '┐': {0, 0, 1, 1},
	'└': {1, 1, 0, 0}, '┘': {1, 0, 0, 1}, '├': {1, 1, 1, 0}, '┤': {1, 0, 1, 1},
	'┬': {0, 1, 1, 1}, '┴': {1, 1, 0, 1}, '┼': {1, 1, 1, 1},
	'━': {0, 2, 0, 2}, '┃': {2, 0, 2, 0}, '┏': {0, 2, 2, 0}, '┓': {0, 0, 2, 2},
	'┗': {2, 2, 0, 0}, '┛': {2, 0, 0, 2}, '┣': {2, 2, 2, 0}, '┫': {2, 0, 2, 2},
	'┳': {0, 2, 2, 2}, '┻': {2, 2, 0, 2}, '╋': {2, 2, 2, 2},
	'═': {0, 3, 0, 3}, '║': {3, 0, 3, 0}, '╔': {0, 3, 3, 0}, '╗': {0, 0, 3, 3},
	'╚': {3, 3, 0, 0}, '╝': {3, 0, 0, 3}, '╠': {3, 3, 3, 0}, '╣': {3, 0, 3, 3},
	'╦': {0, 3, 3, 3}, '╩': {3, 3, 0, 3}, '╬': {3, 3, 3, 3},
	'╴': {0, 0, 0, 1}, '╵': {1, 0, 0, 0}, '╶': {0, 1, 0, 0}, '╷': {0, 0, 1, 0},
	'╸': {0, 0, 0, 2}, '╹': {2, 0, 0, 0}, '╺': {0, 2, 0, 0}, '╻': {0, 0, 2, 0},
}

// rounded are the arc corners: the two arms each joins.
var rounded = map[rune][4]uint8{
	'╭': {0, 1, 1, 0}, '╮': {0, 0, 1, 1}, '╯': {1, 0, 0, 1}, '╰': {1, 1, 0, 0},
}

// dashed are the dashed lines: horizontal or not, weight, dash count.
var dashed = map[rune]struct {
	horizontal bool
	weight     uint8
	dashes     int
}{
	'┄': {true, 1, 3}, '┅': {true, 2, 3}, '┈': {true, 1, 4}, '┉': {true, 2, 4},
	'╌': {true, 1, 2}, '╍': {true, 2, 2},
	'┆': {false, 1, 3}, '┇': {false, 2, 3}, '┊': {false, 1, 4}, '┋': {false, 2, 4},
	'╎': {false, 1, 2}, '╏': {false, 2, 2},
}

// drawn draws r by hand when it is a line, block or braille character and
// reports whether it did.
func (g *glyphs) drawn(m *image.Alpha, r rune, style uint8) bool {
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	t := max(1, int(math.Round(float64(g.ch)/18))) // a light line
	if style&1 != 0 {
		t++
	}
	cx, cy := w/2-t/2, h/2-t/2 // top-left of the centre square
	fill := func(x0, y0, x1, y1 int, a uint8) {
		draw.Draw(m, image.Rect(x0, y0, x1, y1), image.NewUniform(alphaOf(a)), image.Point{}, draw.Src)
	}
	weight := func(wt uint8) int {
		if wt == heavy {
			return 2 * t
		}
		return t
	}
	if arms, ok := box[r]; ok {
		for i, wt := range arms {
			if wt == none {
				continue
			}
			offsets := []int{0}
			lw := weight(wt)
			if wt == double {
				offsets = []int{-t, t}
			}
			for _, o := range offsets {
				x0, y0 := cx-(lw-t)/2, cy-(lw-t)/2
				switch i {
				case 0: // up
					fill(x0+o, 0, x0+o+lw, y0+lw, 0xff)
				case 1: // right
					fill(x0, y0+o, w, y0+o+lw, 0xff)
				case 2: // down
					fill(x0+o, y0, x0+o+lw, h, 0xff)
				case 3: // left
					fill(0, y0+o, x0+lw, y0+o+lw, 0xff)
				}
			}
		}
		return true
	}
	if arms, ok := rounded[r]; ok {
		g.arc(m, arms, t)
		return true
	}
	if d, ok := dashed[r]; ok {
		lw := weight(d.weight)
		n := d.dashes
		for i := range n {
			if d.horizontal {
				seg := float64(w) / float64(n)
				x0 := int(float64(i) * seg)
				fill(x0, cy, x0+int(seg*0.6+0.5), cy+lw, 0xff)
			} else {
				seg := float64(h) / float64(n)
				y0 := int(float64(i) * seg)
				fill(cx, y0, cx+lw, y0+int(seg*0.6+0.5), 0xff)
			}
		}
		return true
	}
	switch {
	case r == '█':
		fill(0, 0, w, h, 0xff)
	case r == '▀':
		fill(0, 0, w, h/2, 0xff)
	case r == '▔':
		fill(0, 0, w, max(1, h/8), 0xff)
	case r >= '▁' && r <= '▇': // lower eighths
		n := int(r-'▁') + 1
		fill(0, h-h*n/8, w, h, 0xff)
	case r >= '▉' && r <= '▏': // left eighths, seven to one
		n := 7 - int(r-'▉')
		fill(0, 0, max(1, w*n/8), h, 0xff)
	case r == '▐':
		fill(w/2, 0, w, h, 0xff)
	case r == '▕':
		fill(w-max(1, w/8), 0, w, h, 0xff)
	case r == '░':
		fill(0, 0, w, h, 0x40)
	case r == '▒':
		fill(0, 0, w, h, 0x80)
	case r == '▓':
		fill(0, 0, w, h, 0xc0)
	case r > 0x2800 && r <= 0x28ff:
		g.braille(m, int(r-0x2800))
	case r == 0x2800:
		// The blank braille pattern.
	default:
		return false
	}
	return true
}

// braille draws the dots of a braille pattern, two columns of four.
func (g *glyphs) braille(m *image.Alpha, bits int) {
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	// Dot numbers 1–8 in bit order: column, row.
	pos := [8][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}}
	d := max(1, w/5)
	for i, p := range pos {
		if bits&(1<<i) == 0 {
			continue
		}
		x := w*(1+2*p[0])/4 - d/2
		y := h*(1+2*p[1])/8 - d/2
		draw.Draw(m, image.Rect(x, y, x+d, y+d), image.Opaque, image.Point{}, draw.Src)
	}
}

// arc draws a rounded corner joining two arms, antialiased by distance to
// the quarter circle.
func (g *glyphs) arc(m *image.Alpha, arms [4]uint8, t int) {
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	cx, cy := float64(w/2-t/2)+float64(t)/2, float64(h/2-t/2)+float64(t)/2 // line centre
	rad := math.Min(float64(w)/2, float64(h)/2)
	// The circle's centre sits diagonally from the line centre, towards the
	// two arms.
	ox, oy := cx, cy
	if arms[1] != none {
		ox += rad
	} else {
		ox -= rad
	}
	if arms[2] != none {
		oy += rad
	} else {
		oy -= rad
	}
	half := float64(t) / 2
	for y := range h {
		for x := range w {
			px, py := float64(x)+0.5, float64(y)+0.5
			var a float64
			inQuadrant := (px-ox)*(cx-ox) >= 0 && (py-oy)*(cy-oy) >= 0
			switch {
			case inQuadrant:
				d := math.Abs(math.Hypot(px-ox, py-oy) - rad)
				a = math.Min(1, math.Max(0, half+0.5-d))
			case arms[1] != none && px >= ox || arms[3] != none && px <= ox:
				// The straight part of the horizontal arm beyond the arc.
				a = math.Min(1, math.Max(0, half+0.5-math.Abs(py-cy)))
			case arms[2] != none && py >= oy || arms[0] != none && py <= oy:
				a = math.Min(1, math.Max(0, half+0.5-math.Abs(px-cx)))
			}
			if a > 0 {
				m.Pix[m.PixOffset(x, y)] = uint8(a * 255)
			}
		}
	}
}

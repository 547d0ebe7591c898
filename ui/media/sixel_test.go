package media

import (
	"image"
	"image/color"
	"strconv"
	"strings"
	"testing"
)

// sixelImage is what a terminal would draw from a sixel sequence.
type sixelImage struct {
	params string // DCS parameters before 'q'
	raster [4]int // Pan, Pad, Ph, Pv
	regs   map[int][3]int
	bands  int
	w, h   int
	pix    map[[2]int]int // (x, y) → register; absent pixels are untouched
}

// decodeSixel is a small, strict sixel decoder: it fails the test on any
// byte a well-formed sequence from our encoder cannot contain.
func decodeSixel(t *testing.T, s string) sixelImage {
	t.Helper()
	if !strings.HasPrefix(s, "\x1bP") || !strings.HasSuffix(s, "\x1b\\") {
		t.Fatalf("not a DCS … ST sequence: %.30q…%.10q", s, s[max(0, len(s)-10):])
	}
	body := s[2 : len(s)-2]
	q := strings.IndexByte(body, 'q')
	if q < 0 {
		t.Fatalf("no 'q' final byte in %.30q", body)
	}
	im := sixelImage{params: body[:q], regs: map[int][3]int{}, pix: map[[2]int]int{}}
	body = body[q+1:]
	num := func() int {
		i := 0
		for i < len(body) && body[i] >= '0' && body[i] <= '9' {
			i++
		}
		if i == 0 {
			t.Fatalf("expected a number at %.20q", body)
		}
		n, _ := strconv.Atoi(body[:i])
		body = body[i:]
		return n
	}
	if !strings.HasPrefix(body, "\"") {
		t.Fatalf("no raster attributes")
	}
	body = body[1:]
	for i := range 4 {
		if i > 0 {
			if body[0] != ';' {
				t.Fatalf("raster attributes: want ';' at %.20q", body)
			}
			body = body[1:]
		}
		im.raster[i] = num()
	}
	x, band, cur := 0, 0, -1
	for body != "" {
		c := body[0]
		switch {
		case c == '#':
			body = body[1:]
			n := num()
			if strings.HasPrefix(body, ";") {
				var v [4]int
				for i := range 4 {
					if body[0] != ';' {
						t.Fatalf("colour %d: want ';' at %.20q", n, body)
					}
					body = body[1:]
					v[i] = num()
				}
				if v[0] != 2 || v[1] > 100 || v[2] > 100 || v[3] > 100 {
					t.Fatalf("colour %d is not RGB percent: %v", n, v)
				}
				if x != 0 || band != 0 || cur != -1 {
					t.Fatalf("colour %d defined after drawing began", n)
				}
				im.regs[n] = [3]int{v[1], v[2], v[3]}
				continue
			}
			if _, ok := im.regs[n]; !ok {
				t.Fatalf("colour %d used but never defined", n)
			}
			cur = n
		case c == '!':
			body = body[1:]
			n := num()
			if body == "" || body[0] < '?' || body[0] > '~' {
				t.Fatalf("repeat without a sixel")
			}
			for range n {
				im.put(x, band, cur, body[0]-'?')
				x++
			}
			body = body[1:]
		case c == '$':
			x = 0
			body = body[1:]
		case c == '-':
			x, band = 0, band+1
			body = body[1:]
		case c >= '?' && c <= '~':
			if cur < 0 {
				t.Fatalf("sixel data before any colour was selected")
			}
			im.put(x, band, cur, c-'?')
			x++
			body = body[1:]
		default:
			t.Fatalf("unexpected byte %q in sixel data", c)
		}
		im.w = max(im.w, x)
	}
	im.bands = band + 1
	for p := range im.pix {
		im.h = max(im.h, p[1]+1)
	}
	return im
}

func (im *sixelImage) put(x, band, reg int, bits byte) {
	for k := range 6 {
		if bits&(1<<k) != 0 {
			im.pix[[2]int{x, band*6 + k}] = reg
		}
	}
}

// colour returns the 8-bit colour drawn at (x, y).
func (im *sixelImage) colour(x, y int) (c [3]uint8, ok bool) {
	reg, ok := im.pix[[2]int{x, y}]
	if !ok {
		return c, false
	}
	p := im.regs[reg]
	for i := range 3 {
		c[i] = uint8((p[i]*255 + 50) / 100)
	}
	return c, true
}

func TestSixelExactColours(t *testing.T) {
	// 13×17: height not a multiple of 6, five colours, transparent holes.
	cols := []color.RGBA{{255, 0, 0, 255}, {0, 128, 0, 255}, {10, 20, 240, 255}, {255, 255, 255, 255}, {0, 0, 0, 255}}
	m := image.NewRGBA(image.Rect(0, 0, 13, 17))
	for y := range 17 {
		for x := range 13 {
			if (x+y)%7 == 3 {
				continue // transparent
			}
			m.SetRGBA(x, y, cols[(x*3+y)%len(cols)])
		}
	}
	im := decodeSixel(t, encodeSixel(m))
	if im.params != "0;1" && im.params != "0;1;0" {
		t.Errorf("DCS parameters %q, want 0;1 (P2=1 keeps undrawn pixels transparent)", im.params)
	}
	if im.raster != [4]int{1, 1, 13, 17} {
		t.Errorf("raster attributes %v, want 1;1;13;17", im.raster)
	}
	if im.bands != 3 {
		t.Errorf("%d sixel rows, want 3 for 17 pixel rows", im.bands)
	}
	if len(im.regs) != len(cols) {
		t.Errorf("%d colour registers, want %d", len(im.regs), len(cols))
	}
	for y := range 17 {
		for x := range 13 {
			got, ok := im.colour(x, y)
			if (x+y)%7 == 3 {
				if ok {
					t.Errorf("transparent pixel %d,%d was drawn", x, y)
				}
				continue
			}
			want := cols[(x*3+y)%len(cols)]
			if !ok || !near(got[0], want.R, 2) || !near(got[1], want.G, 2) || !near(got[2], want.B, 2) {
				t.Errorf("pixel %d,%d = %v (drawn %v), want %v", x, y, got, ok, want)
			}
		}
	}
}

func TestSixelManyColours(t *testing.T) {
	// A smooth three-channel gradient: 4800 colours.
	const w, h = 96, 50
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x + y) * 255 / (w + h)), 255})
		}
	}
	im := decodeSixel(t, encodeSixel(m))
	if len(im.regs) == 0 || len(im.regs) > 256 {
		t.Fatalf("%d colour registers, want 1…256", len(im.regs))
	}
	if im.bands != 9 || im.raster[2] != w || im.raster[3] != h {
		t.Errorf("%d bands, raster %v; want 9 bands of a %d×%d image", im.bands, im.raster, w, h)
	}
	// Dithering trades per-pixel error for a correct average: check both,
	// the average over 4×4 blocks tightly.
	var worst int
	for by := 0; by+4 <= h; by += 4 {
		for bx := 0; bx+4 <= w; bx += 4 {
			var got, want [3]int
			for y := by; y < by+4; y++ {
				for x := bx; x < bx+4; x++ {
					c, ok := im.colour(x, y)
					if !ok {
						t.Fatalf("pixel %d,%d not drawn", x, y)
					}
					o := m.RGBAAt(x, y)
					for i, v := range [3]uint8{o.R, o.G, o.B} {
						got[i] += int(c[i])
						want[i] += int(v)
						if d := abs(int(c[i]) - int(v)); d > 100 {
							t.Fatalf("pixel %d,%d channel %d off by %d", x, y, i, d)
						}
					}
				}
			}
			for i := range 3 {
				worst = max(worst, abs(got[i]-want[i])/16)
			}
		}
	}
	// Undithered median cut leaves this gradient's blocks 8 levels off.
	if worst > 6 {
		t.Errorf("4×4 block averages are off by up to %d levels, want ≤ 6", worst)
	}
}

func abs(v int) int { return max(v, -v) }

func TestSixelRunLength(t *testing.T) {
	m := stripes(100, 6, color.RGBA{0, 0, 255, 255})
	out := encodeSixel(m)
	if !strings.Contains(out, "#0!100~") {
		t.Errorf("a 100-pixel run is not run-length encoded: %q", out)
	}
	im := decodeSixel(t, out)
	if im.bands != 1 || im.w != 100 || len(im.pix) != 600 {
		t.Errorf("decoded %d bands, %d wide, %d pixels; want 1, 100, 600", im.bands, im.w, len(im.pix))
	}
}

func TestRenderSixel(t *testing.T) {
	path := writePNG(t, halves(800, 400))
	out, err := RenderFile(path, Sixel, Options{Cols: 40, Rows: 20, CellWidth: 8, CellHeight: 16})
	if err != nil {
		t.Fatal(err)
	}
	im := decodeSixel(t, out)
	// 40 cells of 8 px = 320 px wide, aspect 2:1 → 160 px tall, 27 bands.
	if im.raster[2] != 320 || im.raster[3] != 160 || im.bands != 27 {
		t.Fatalf("raster %v with %d bands, want 320×160 in 27", im.raster, im.bands)
	}
	if c, _ := im.colour(80, 80); !near(c[0], 247, 10) || !near(c[2], 3, 10) {
		t.Errorf("left half is %v, want red", c)
	}
	if c, _ := im.colour(240, 80); !near(c[2], 247, 10) || !near(c[0], 3, 10) {
		t.Errorf("right half is %v, want blue", c)
	}
}

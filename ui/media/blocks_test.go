package media

import (
	"image"
	"image/color"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// cell is one parsed half-block cell: its glyph and colours (noColour for
// the terminal default).
type cell struct {
	glyph  string
	fg, bg int32
}

var sgrRE = regexp.MustCompile(`^\x1b\[([0-9;]*)m`)

// parseBlocks interprets RenderBlocks output like a terminal would, failing
// on anything but SGR colour escapes and the three glyphs it may use.
func parseBlocks(t *testing.T, s string) [][]cell {
	t.Helper()
	var grid [][]cell
	for _, line := range strings.Split(s, "\n") {
		fg, bg := int32(noColour), int32(noColour)
		var row []cell
		for line != "" {
			if m := sgrRE.FindStringSubmatch(line); m != nil {
				line = line[len(m[0]):]
				p := strings.Split(m[1], ";")
				for i := 0; i < len(p); i++ {
					switch p[i] {
					case "0", "":
						fg, bg = noColour, noColour
					case "39":
						fg = noColour
					case "49":
						bg = noColour
					case "38", "48":
						if i+4 >= len(p) || p[i+1] != "2" {
							t.Fatalf("malformed colour in %q", m[0])
						}
						r, _ := strconv.Atoi(p[i+2])
						g, _ := strconv.Atoi(p[i+3])
						b, _ := strconv.Atoi(p[i+4])
						v := int32(r<<16 | g<<8 | b)
						if p[i] == "38" {
							fg = v
						} else {
							bg = v
						}
						i += 4
					default:
						t.Fatalf("unexpected SGR parameter %q in %q", p[i], m[0])
					}
				}
				continue
			}
			var g string
			switch {
			case strings.HasPrefix(line, "▀"), strings.HasPrefix(line, "▄"):
				g = line[:len("▀")]
			case strings.HasPrefix(line, " "):
				g = " "
			default:
				t.Fatalf("unexpected output %.20q", line)
			}
			row = append(row, cell{g, fg, bg})
			line = line[len(g):]
		}
		if fg != noColour || bg != noColour {
			t.Errorf("line %d leaves colours set at its end", len(grid))
		}
		grid = append(grid, row)
	}
	return grid
}

// stripes returns a w×h image whose row y has colour cols[y%len(cols)].
func stripes(w, h int, cols ...color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, cols[y%len(cols)])
		}
	}
	return m
}

func TestRenderBlocksColours(t *testing.T) {
	red, green, blue, white := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 200, 0, 255}, color.RGBA{0, 0, 255, 255}, color.RGBA{255, 255, 255, 255}
	// 4×8 pixels shown in 4×4 cells: no scaling, so colours are exact.
	out := RenderBlocks(stripes(4, 8, red, green, blue, white), 4, 4)
	g := parseBlocks(t, out)
	if len(g) != 4 {
		t.Fatalf("%d lines, want 4", len(g))
	}
	for y, row := range g {
		if len(row) != 4 {
			t.Fatalf("line %d has %d cells, want 4", y, len(row))
		}
		for x, c := range row {
			want := cell{"▀", rgb(red.R, red.G, red.B), rgb(green.R, green.G, green.B)}
			if y%2 == 1 {
				want = cell{"▀", rgb(blue.R, blue.G, blue.B), rgb(white.R, white.G, white.B)}
			}
			if c != want {
				t.Errorf("cell %d,%d = %+v, want %+v", x, y, c, want)
			}
		}
	}
	// Equal neighbours share one escape: one SGR per line here.
	if n := strings.Count(out, "\x1b[38;2;"); n != 4 {
		t.Errorf("%d foreground escapes for 4 uniform lines, want 4", n)
	}
}

func TestRenderBlocksWidth(t *testing.T) {
	for _, c := range []struct{ w, h, cols, rows int }{
		{800, 400, 80, 24}, {400, 800, 80, 24}, {333, 77, 17, 5}, {5, 3, 80, 24}, {2000, 10, 7, 7}, {64, 64, 1, 1},
	} {
		out := RenderBlocks(halves(c.w, c.h), c.cols, c.rows)
		lines := strings.Split(out, "\n")
		fw, fh := FitBlocks(c.w, c.h, c.cols, c.rows)
		if len(lines) != (fh+1)/2 || len(lines) > c.rows {
			t.Errorf("%d×%d in %d×%d: %d lines, want %d (≤ %d)", c.w, c.h, c.cols, c.rows, len(lines), (fh+1)/2, c.rows)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != fw || w > c.cols {
				t.Errorf("%d×%d in %d×%d: line %d is %d wide, want %d (≤ %d)", c.w, c.h, c.cols, c.rows, i, w, fw, c.cols)
			}
		}
		if strings.HasSuffix(out, "\n") {
			t.Errorf("trailing newline")
		}
		// Aspect ratio: cells are 1:2, so width/(2·lines) ≈ w/h.
		got, want := float64(fw)/float64(fh), float64(c.w)/float64(c.h)
		if fw > 2 && fh > 2 && (got/want > 1.25 || want/got > 1.25) {
			t.Errorf("%d×%d in %d×%d: drawn %d×%d px, aspect %.2f, want %.2f", c.w, c.h, c.cols, c.rows, fw, fh, got, want)
		}
	}
	if RenderBlocks(nil, 10, 10) != "" || RenderBlocks(halves(4, 4), 0, 10) != "" {
		t.Errorf("nil image or no room should render nothing")
	}
}

func TestRenderBlocksTransparencyAndOddHeight(t *testing.T) {
	clearPx, red, blue := color.RGBA{}, color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}
	// Rows: red, clear, clear, blue, red → 3 lines, the last with no lower half.
	m := stripes(2, 5, red, clearPx, clearPx, blue, red)
	g := parseBlocks(t, RenderBlocks(m, 2, 3))
	want := [][]cell{
		{{"▀", 0xff0000, noColour}, {"▀", 0xff0000, noColour}},
		{{"▄", 0x0000ff, noColour}, {"▄", 0x0000ff, noColour}},
		{{"▀", 0xff0000, noColour}, {"▀", 0xff0000, noColour}},
	}
	if len(g) != len(want) {
		t.Fatalf("%d lines, want %d", len(g), len(want))
	}
	for y := range want {
		for x := range want[y] {
			if g[y][x] != want[y][x] {
				t.Errorf("cell %d,%d = %+v, want %+v", x, y, g[y][x], want[y][x])
			}
		}
	}
	// Fully transparent: spaces, no colour at all.
	out := RenderBlocks(stripes(3, 2, clearPx), 3, 1)
	if out != "   " {
		t.Errorf("transparent image rendered as %q, want three spaces", out)
	}
}

// TestRenderBlocksInLipgloss places half-blocks beside text with lipgloss,
// as the TUI does: widths must add up and the colours must survive.
func TestRenderBlocksInLipgloss(t *testing.T) {
	img := RenderBlocks(halves(40, 40), 10, 5) // 10×10 pixels: 5 lines
	box := lipgloss.JoinHorizontal(lipgloss.Top, img, " caption")
	lines := strings.Split(box, "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5", len(lines))
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w != 10+len(" caption") {
			t.Errorf("line %d is %d wide, want %d: %q", i, w, 18, l)
		}
	}
	if !strings.Contains(box, "\x1b[38;2;") || !strings.HasPrefix(ansi.Strip(lines[0]), "▀▀▀▀▀▀▀▀▀▀ caption") {
		t.Errorf("colours or cells lost in layout: %q", lines[0])
	}
}

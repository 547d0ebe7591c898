package media

import (
	"image"
	"strconv"
	"strings"
)

// RenderBlocks draws img as lines of half-block cells fitted into cols×rows
// with its aspect ratio kept, one image pixel per half cell at most: each cell is "▀" with the upper pixel as the foreground colour
// and the lower as the background, in 24-bit colour. Transparent pixels are
// left to the terminal's background. Lines are joined by "\n" with no
// trailing newline, each ends with a reset, and each is at most cols cells
// wide, so the result can be placed by lipgloss like any other string.
func RenderBlocks(img image.Image, cols, rows int) string {
	if img == nil || img.Bounds().Empty() || cols < 1 || rows < 1 {
		return ""
	}
	b := img.Bounds()
	w, h := FitBlocks(b.Dx(), b.Dy(), cols, rows)
	return blocks(scale(img, w, h))
}

// FitBlocks returns the pixel size w×h to which RenderBlocks scales an
// imgW×imgH image for a cols×rows box: the result is w cells wide and
// (h+1)/2 lines tall. Like Fit it keeps the aspect ratio, but the natural
// size of a half-block image is one pixel per half cell, so small images
// (icons, thumbnails) get fewer cells than Fit would give them.
func FitBlocks(imgW, imgH, cols, rows int) (w, h int) {
	_, _, w, h = fit(imgW, imgH, cols, rows, 1, 2)
	return w, h
}

// blocks renders m one cell per 1×2 pixels; an odd last row leaves the
// lower halves of its cells to the background.
func blocks(m *image.RGBA) string {
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	var sb strings.Builder
	sb.Grow(w * h / 2 * 24)
	for y := 0; y < h; y += 2 {
		if y > 0 {
			sb.WriteByte('\n')
		}
		pen := sgr{fg: noColour, bg: noColour}
		for x := 0; x < w; x++ {
			tr, tg, tb, top := straight(m, x, y)
			var br, bg, bb uint8
			bottom := false
			if y+1 < h {
				br, bg, bb, bottom = straight(m, x, y+1)
			}
			switch {
			case top && bottom:
				pen.set(&sb, rgb(tr, tg, tb), rgb(br, bg, bb))
				sb.WriteString("▀")
			case top:
				pen.set(&sb, rgb(tr, tg, tb), noColour)
				sb.WriteString("▀")
			case bottom:
				pen.set(&sb, rgb(br, bg, bb), noColour)
				sb.WriteString("▄")
			default:
				pen.set(&sb, pen.fg, noColour)
				sb.WriteByte(' ')
			}
		}
		if pen.fg != noColour || pen.bg != noColour {
			sb.WriteString("\x1b[0m")
		}
	}
	return sb.String()
}

// noColour is the terminal's default colour.
const noColour = -1

func rgb(r, g, b uint8) int32 { return int32(r)<<16 | int32(g)<<8 | int32(b) }

// sgr tracks the colours in effect so a run of equal cells costs one escape.
type sgr struct {
	fg, bg int32
}

func (p *sgr) set(sb *strings.Builder, fg, bg int32) {
	if fg == p.fg && bg == p.bg {
		return
	}
	var parts []string
	if fg != p.fg {
		parts = append(parts, colourParam(38, fg))
	}
	if bg != p.bg {
		parts = append(parts, colourParam(48, bg))
	}
	sb.WriteString("\x1b[" + strings.Join(parts, ";") + "m")
	p.fg, p.bg = fg, bg
}

func colourParam(base int, c int32) string {
	if c == noColour {
		return strconv.Itoa(base + 1) // 39 or 49: default colour
	}
	return strconv.Itoa(base) + ";2;" + strconv.Itoa(int(c>>16&255)) + ";" + strconv.Itoa(int(c>>8&255)) + ";" + strconv.Itoa(int(c&255))
}

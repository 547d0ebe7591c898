package media

import (
	"image"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/sixel"
)

// encodeSixel encodes m as a DEC sixel image. x/ansi writes the frame — DCS
// "P0;1q" (P2=1: pixels not drawn stay transparent) … ST — the raster
// attributes (1:1 aspect, the size) and the colour registers (RGB in
// percent). The pixels are ours: x/ansi's encoder maps each pixel to its
// nearest palette colour, which bands gradients, and draws transparent
// pixels; quantize dithers (TestSixelDitheringBeatsTheLibrary measures the
// difference) and leaves transparent pixels undrawn. One sixel row covers
// six pixel rows; each colour's pass is run-length encoded, passes are
// separated by "$" (back to the row's start) and rows by "-" (next row).
func encodeSixel(m *image.RGBA) string {
	q := quantize(m, 256)
	var sb strings.Builder
	sb.Grow(q.w * q.h / 2)
	_, _ = sixel.WriteRaster(&sb, 1, 1, q.w, q.h)
	for i, p := range q.palette {
		_, _ = sixel.WriteColor(&sb, i, 2, percent(p[0]), percent(p[1]), percent(p[2]))
	}
	// rows[i] holds colour i's sixel bits for the current band, one byte a
	// column; used lists the colours present, in order of appearance.
	rows := make([][]byte, len(q.palette))
	inUse := make([]bool, len(q.palette))
	var used []int
	for y0 := 0; y0 < q.h; y0 += 6 {
		if y0 > 0 {
			sb.WriteByte('-')
		}
		used = used[:0]
		for k := 0; k < 6 && y0+k < q.h; k++ {
			line := q.index[(y0+k)*q.w : (y0+k+1)*q.w]
			for x, i := range line {
				if i < 0 {
					continue
				}
				if rows[i] == nil {
					rows[i] = make([]byte, q.w)
				}
				if !inUse[i] {
					inUse[i] = true
					used = append(used, int(i))
				}
				rows[i][x] |= 1 << k
			}
		}
		for n, i := range used {
			if n > 0 {
				sb.WriteByte('$')
			}
			sb.WriteString("#" + strconv.Itoa(i))
			writeSixelRow(&sb, rows[i])
			clear(rows[i])
			inUse[i] = false
		}
	}
	return ansi.SixelGraphics(0, 1, 0, []byte(sb.String()))
}

// writeSixelRow writes one colour pass: a sixel character (63 + bits) per
// column, repeats of four or more as "!n<char>", trailing empty columns
// dropped.
func writeSixelRow(sb *strings.Builder, row []byte) {
	end := len(row)
	for end > 0 && row[end-1] == 0 {
		end--
	}
	for x := 0; x < end; {
		v := row[x]
		n := 1
		for x+n < end && row[x+n] == v {
			n++
		}
		ch := byte(63 + v)
		if n >= 4 {
			sb.WriteString("!" + strconv.Itoa(n))
			sb.WriteByte(ch)
		} else {
			for range n {
				sb.WriteByte(ch)
			}
		}
		x += n
	}
}

// percent converts an 8-bit channel to sixel's 0–100 scale.
func percent(v uint8) int { return (int(v)*100 + 127) / 255 }

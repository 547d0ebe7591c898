package media

import (
	"image"
	"strconv"
	"strings"
)

// encodeSixel encodes m as a DEC sixel image: DCS "P0;1;0q" (P2=1: pixels
// not drawn stay transparent), raster attributes with a 1:1 aspect and the
// size, one colour register per palette entry (RGB in percent), then one
// sixel row per six pixel rows, each colour's pass run-length encoded and
// separated by "$" (back to the row's start) and rows by "-" (next row),
// closed by ST.
func encodeSixel(m *image.RGBA) string {
	q := quantize(m, 256)
	var sb strings.Builder
	sb.Grow(q.w * q.h / 2)
	sb.WriteString("\x1bP0;1;0q\"1;1;")
	sb.WriteString(strconv.Itoa(q.w) + ";" + strconv.Itoa(q.h))
	for i, p := range q.palette {
		sb.WriteString("#" + strconv.Itoa(i) + ";2;" + strconv.Itoa(percent(p[0])) + ";" + strconv.Itoa(percent(p[1])) + ";" + strconv.Itoa(percent(p[2])))
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
	sb.WriteString("\x1b\\")
	return sb.String()
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

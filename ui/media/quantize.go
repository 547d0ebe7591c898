package media

import (
	"image"
	"slices"
)

// paletted is an image reduced to at most 256 colours.
type paletted struct {
	w, h    int
	palette [][3]uint8
	// index holds a palette index per pixel, row by row; -1 is transparent.
	index []int16
}

// quantize reduces m to at most maxColours colours. An image that already
// has that few keeps its exact colours; others get a median-cut palette and
// Floyd–Steinberg dithering, which keeps gradients smooth.
func quantize(m *image.RGBA, maxColours int) paletted {
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	q := paletted{w: w, h: h, index: make([]int16, w*h)}
	if exactPalette(m, maxColours, &q) {
		return q
	}
	q.palette = medianCut(m, maxColours)
	ditherInto(m, &q)
	return q
}

// exactPalette fills q with m's own colours if there are at most limit.
func exactPalette(m *image.RGBA, limit int, q *paletted) bool {
	seen := make(map[int32]int16)
	for y := 0; y < q.h; y++ {
		for x := 0; x < q.w; x++ {
			r, g, b, ok := straight(m, m.Rect.Min.X+x, m.Rect.Min.Y+y)
			if !ok {
				q.index[y*q.w+x] = -1
				continue
			}
			k := rgb(r, g, b)
			i, found := seen[k]
			if !found {
				if len(seen) == limit {
					q.palette = nil
					return false
				}
				i = int16(len(seen))
				seen[k] = i
				q.palette = append(q.palette, [3]uint8{r, g, b})
			}
			q.index[y*q.w+x] = i
		}
	}
	return true
}

// bin is one cell of a 5-bit-per-channel colour histogram.
type bin struct {
	c    [3]uint8 // 5-bit coordinates
	n    int
	sums [3]int
}

// medianCut returns up to limit colours chosen by recursively splitting the
// colour box with the most weight × spread at its population median.
func medianCut(m *image.RGBA, limit int) [][3]uint8 {
	hist := make(map[uint16]*bin)
	for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
		for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
			r, g, b, ok := straight(m, x, y)
			if !ok {
				continue
			}
			k := key15(r, g, b)
			bn := hist[k]
			if bn == nil {
				bn = &bin{c: [3]uint8{r >> 3, g >> 3, b >> 3}}
				hist[k] = bn
			}
			bn.n++
			bn.sums[0] += int(r)
			bn.sums[1] += int(g)
			bn.sums[2] += int(b)
		}
	}
	bins := make([]bin, 0, len(hist))
	for _, b := range hist {
		bins = append(bins, *b)
	}
	if len(bins) == 0 {
		return [][3]uint8{{0, 0, 0}}
	}
	// Map iteration order is random; sort so the palette is deterministic.
	slices.SortFunc(bins, func(a, b bin) int { return int(key5(a.c)) - int(key5(b.c)) })

	type box struct{ lo, hi int }
	boxes := []box{{0, len(bins)}}
	spread := func(bx box) (axis, width, n int) {
		lo, hi := [3]uint8{31, 31, 31}, [3]uint8{}
		for _, b := range bins[bx.lo:bx.hi] {
			n += b.n
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], b.c[c]), max(hi[c], b.c[c])
			}
		}
		for c := range 3 {
			if d := int(hi[c]) - int(lo[c]); d > width {
				axis, width = c, d
			}
		}
		return axis, width, n
	}
	for len(boxes) < limit {
		best, bestScore, bestAxis := -1, 0, 0
		for i, bx := range boxes {
			axis, width, n := spread(bx)
			if bx.hi-bx.lo < 2 || width == 0 {
				continue
			}
			if s := width * n; s > bestScore {
				best, bestScore, bestAxis = i, s, axis
			}
		}
		if best < 0 {
			break
		}
		bx := boxes[best]
		part := bins[bx.lo:bx.hi]
		slices.SortFunc(part, func(a, b bin) int { return int(a.c[bestAxis]) - int(b.c[bestAxis]) })
		total := 0
		for _, b := range part {
			total += b.n
		}
		cut, acc := 1, 0
		for i, b := range part[:len(part)-1] {
			acc += b.n
			cut = i + 1
			if 2*acc >= total {
				break
			}
		}
		boxes[best] = box{bx.lo, bx.lo + cut}
		boxes = append(boxes, box{bx.lo + cut, bx.hi})
	}
	pal := make([][3]uint8, 0, len(boxes))
	for _, bx := range boxes {
		var n int
		var s [3]int
		for _, b := range bins[bx.lo:bx.hi] {
			n += b.n
			for c := range 3 {
				s[c] += b.sums[c]
			}
		}
		pal = append(pal, [3]uint8{uint8((s[0] + n/2) / n), uint8((s[1] + n/2) / n), uint8((s[2] + n/2) / n)})
	}
	return pal
}

func key15(r, g, b uint8) uint16 { return uint16(r>>3)<<10 | uint16(g>>3)<<5 | uint16(b>>3) }
func key5(c [3]uint8) uint16     { return uint16(c[0])<<10 | uint16(c[1])<<5 | uint16(c[2]) }

// ditherInto maps m's pixels onto q.palette with Floyd–Steinberg error
// diffusion. Nearest colours are memoised per 15-bit colour.
func ditherInto(m *image.RGBA, q *paletted) {
	lut := make([]int16, 1<<15)
	for i := range lut {
		lut[i] = -1
	}
	nearest := func(r, g, b uint8) int16 {
		k := key15(r, g, b)
		if lut[k] >= 0 {
			return lut[k]
		}
		best, bestD := 0, int(^uint(0)>>1)
		for i, p := range q.palette {
			dr, dg, db := int(r)-int(p[0]), int(g)-int(p[1]), int(b)-int(p[2])
			if d := dr*dr + dg*dg + db*db; d < bestD {
				best, bestD = i, d
			}
		}
		lut[k] = int16(best)
		return int16(best)
	}
	// Error rows, in 1/16ths, with a pixel of margin on each side.
	cur := make([][3]int, q.w+2)
	next := make([][3]int, q.w+2)
	for y := 0; y < q.h; y++ {
		clear(next)
		for x := 0; x < q.w; x++ {
			r, g, b, ok := straight(m, m.Rect.Min.X+x, m.Rect.Min.Y+y)
			if !ok {
				q.index[y*q.w+x] = -1
				continue
			}
			want := [3]int{int(r), int(g), int(b)}
			var v [3]uint8
			for c := range 3 {
				v[c] = uint8(clamp(want[c]+cur[x+1][c]/16, 0, 255))
			}
			i := nearest(v[0], v[1], v[2])
			q.index[y*q.w+x] = i
			p := q.palette[i]
			for c := range 3 {
				e := int(v[c]) - int(p[c])
				cur[x+2][c] += e * 7
				next[x][c] += e * 3
				next[x+1][c] += e * 5
				next[x+2][c] += e * 1
			}
		}
		cur, next = next, cur
	}
}

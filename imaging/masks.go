package imaging

import (
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"

	xdraw "golang.org/x/image/draw"
)

// Mask is one segment to overlay: a mask image whose non-black pixels are
// inside, with an optional label and score (NaN for none).
type Mask struct {
	Label string
	Score float64
	Image image.Image
}

// maskInside is the luma above which a mask pixel counts as inside: "non-
// black", with room for JPEG noise and antialiased edges.
const maskInside = 0x20

// maskAlpha is how strongly a segment's colour tints the pixels under it.
const maskAlpha = 0.45

// OverlayMasks tints the pixels inside each mask with a semi-transparent
// colour (a distinct one per label), outlines each segment in the solid
// colour and writes its label, if any, at the segment's top-left. Masks of
// another size are scaled to the image. It returns the annotated copy and,
// for each mask, the fraction of the image it covers.
func OverlayMasks(img image.Image, masks []Mask) (*image.RGBA, []float64) {
	dst := cloneRGBA(img)
	b := dst.Bounds()
	w, h := b.Dx(), b.Dy()
	t := max(1, strokeWidth(b)-1)
	cols := colourer{}
	cover := make([]float64, len(masks))
	var tags []func()
	inside := make([]bool, w*h)
	edge := make([]bool, w*h)
	for mi, m := range masks {
		if mi >= maxMasks || m.Image == nil || m.Image.Bounds().Empty() {
			continue
		}
		label := m.Label
		if strings.TrimSpace(label) == "" {
			label = fmt.Sprintf("segment %d", mi+1)
		}
		col := cols.of(label)
		bbox, n := maskPixels(m.Image, w, h, inside)
		if n == 0 {
			continue
		}
		cover[mi] = float64(n) / float64(w*h)
		tint(dst, inside, col)
		outline(dst, inside, edge, t, col)
		if strings.TrimSpace(m.Label) != "" {
			label, score := tagText(m.Label, m.Score)
			tags = append(tags, func() { drawTag(dst, bbox, label, score, col) })
		}
	}
	for _, f := range tags {
		f()
	}
	return dst, cover
}

// maskPixels fills inside with the mask's inside pixels, scaled to w×h, and
// returns their bounding box and count.
func maskPixels(m image.Image, w, h int, inside []bool) (image.Rectangle, int) {
	var g *image.Gray
	if mb := m.Bounds(); mb.Dx() != w || mb.Dy() != h {
		g = image.NewGray(image.Rect(0, 0, w, h))
		xdraw.NearestNeighbor.Scale(g, g.Bounds(), m, mb, xdraw.Src, nil)
	} else if gg, ok := m.(*image.Gray); ok && mb.Min == (image.Point{}) {
		g = gg
	} else {
		g = image.NewGray(image.Rect(0, 0, w, h))
		draw.Draw(g, g.Bounds(), m, mb.Min, draw.Src)
	}
	x0, y0, x1, y1 := w, h, -1, -1
	n := 0
	for y := range h {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			in := v > maskInside
			inside[y*w+x] = in
			if in {
				n++
				x0, x1 = min(x0, x), max(x1, x)
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
	}
	if n == 0 {
		return image.Rectangle{}, 0
	}
	return image.Rect(x0, y0, x1+1, y1+1), n
}

// tint blends col over the inside pixels ("over" on premultiplied RGBA).
func tint(dst *image.RGBA, inside []bool, col color.RGBA) {
	w := dst.Rect.Dx()
	a := maskAlpha
	cr, cg, cb := a*float64(col.R), a*float64(col.G), a*float64(col.B)
	for i, in := range inside {
		if !in {
			continue
		}
		x, y := i%w, i/w
		p := dst.Pix[y*dst.Stride+4*x : y*dst.Stride+4*x+4]
		p[0] = uint8(cr + (1-a)*float64(p[0]) + 0.5)
		p[1] = uint8(cg + (1-a)*float64(p[1]) + 0.5)
		p[2] = uint8(cb + (1-a)*float64(p[2]) + 0.5)
		p[3] = uint8(255*a + (1-a)*float64(p[3]) + 0.5)
	}
}

// outline paints, in col, the inside pixels within t pixels of the
// segment's boundary, so the outline never spills outside the mask.
func outline(dst *image.RGBA, inside, edge []bool, t int, col color.RGBA) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	in := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && inside[y*w+x] }
	for i := range edge {
		x, y := i%w, i/w
		edge[i] = inside[i] && (!in(x-1, y) && x > 0 || !in(x+1, y) && x < w-1 || !in(x, y-1) && y > 0 || !in(x, y+1) && y < h-1)
	}
	for range t - 1 {
		grown := make([]bool, len(edge))
		copy(grown, edge)
		for i, e := range edge {
			if !e {
				continue
			}
			x, y := i%w, i/w
			for _, p := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if in(p[0], p[1]) {
					grown[p[1]*w+p[0]] = true
				}
			}
		}
		copy(edge, grown)
	}
	for i, e := range edge {
		if e {
			x, y := i%w, i/w
			dst.SetRGBA(x, y, col)
		}
	}
}

// decodeMask decodes a base64 mask image (a data: URI prefix is allowed).
func decodeMask(s string) (image.Image, error) {
	if i := strings.Index(s, ";base64,"); i >= 0 && strings.HasPrefix(s, "data:") {
		s = s[i+len(";base64,"):]
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(strings.TrimSpace(s)); err != nil {
			return nil, fmt.Errorf("%w: mask is not base64: %w", ErrBadInput, err)
		}
	}
	m, _, err := Decode(data)
	return m, err
}

// isBinaryMask reports whether nearly every pixel of m is grey and close to
// black or white, as masks are and photographs are not.
func isBinaryMask(m image.Image) bool {
	b := m.Bounds()
	step := max(1, int(math.Sqrt(float64(b.Dx()*b.Dy())/4096)))
	total, binary := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, _ := m.At(x, y).RGBA()
			total++
			grey := max(r, g, bl)-min(r, g, bl) < 0x1000
			if grey && (r < 0x2000 || r > 0xe000) {
				binary++
			}
		}
	}
	return total > 0 && binary*100 >= total*97
}

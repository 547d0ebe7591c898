package imaging

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// palette holds distinct saturated colours that stay readable under white
// or black text; labels take them in order of first appearance.
var palette = []color.RGBA{
	{230, 25, 75, 255}, {60, 180, 75, 255}, {0, 130, 200, 255}, {245, 130, 48, 255},
	{145, 30, 180, 255}, {70, 240, 240, 255}, {240, 50, 230, 255}, {210, 245, 60, 255},
	{250, 190, 212, 255}, {0, 128, 128, 255}, {220, 190, 255, 255}, {170, 110, 40, 255},
	{255, 225, 25, 255}, {128, 0, 0, 255}, {170, 255, 195, 255}, {0, 0, 128, 255},
}

// colourer hands out a palette colour per distinct label.
type colourer map[string]color.RGBA

func (c colourer) of(label string) color.RGBA {
	key := strings.ToLower(strings.TrimSpace(label))
	if col, ok := c[key]; ok {
		return col
	}
	col := palette[len(c)%len(palette)]
	c[key] = col
	return col
}

// strokeWidth is the outline width for an image of size b: 2 px on small
// images, growing so boxes stay visible on large photos.
func strokeWidth(b image.Rectangle) int {
	return max(2, min(b.Dx(), b.Dy())/250)
}

// labelScale is the integer magnification of the 7×13 bitmap font, so
// labels stay readable on large images.
func labelScale(b image.Rectangle) int {
	return max(1, min(4, min(b.Dx(), b.Dy())/500))
}

// DrawDetections draws each detection's box, clipped to the image, in a
// colour per label, with "label 0.98" on a filled tag kept inside the image.
// It returns the annotated copy and the detections actually drawn (boxes
// entirely outside the image are dropped; the rest are clipped).
func DrawDetections(img image.Image, dets []Detection) (*image.RGBA, []Detection) {
	dst := cloneRGBA(img)
	b := dst.Bounds()
	t := strokeWidth(b)
	cols := colourer{}
	var drawn []Detection
	var tags []func()
	for _, d := range dets {
		r := pixelRect(d.Box).Intersect(b)
		if r.Empty() {
			continue
		}
		col := cols.of(d.Label)
		strokeRect(dst, r, t, col)
		clipped := d
		clipped.Box = [4]float64{float64(r.Min.X), float64(r.Min.Y), float64(r.Max.X), float64(r.Max.Y)}
		drawn = append(drawn, clipped)
		label, score := tagText(d.Label, d.Score)
		tags = append(tags, func() { drawTag(dst, r, label, score, col) })
	}
	// Tags go on last so no later box covers an earlier label.
	for _, f := range tags {
		f()
	}
	return dst, drawn
}

// strokeRect draws r's outline t pixels wide, inside r.
func strokeRect(dst *image.RGBA, r image.Rectangle, t int, col color.RGBA) {
	t = min(t, (r.Dx()+1)/2, (r.Dy()+1)/2)
	u := image.NewUniform(col)
	for _, s := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+t)},
		{image.Pt(r.Min.X, r.Max.Y-t), r.Max},
		{r.Min, image.Pt(r.Min.X+t, r.Max.Y)},
		{image.Pt(r.Max.X-t, r.Min.Y), r.Max},
	} {
		draw.Draw(dst, s.Intersect(dst.Bounds()), u, image.Point{}, draw.Src)
	}
}

// tagText renders a label for the bitmap font, which has ASCII glyphs
// only, and its score; the label is kept whole (up to maxLabelRunes).
func tagText(label string, score float64) (text, scoreText string) {
	var b strings.Builder
	n := 0
	for _, r := range strings.TrimSpace(label) {
		if n == maxLabelRunes {
			b.WriteString("...")
			break
		}
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		default:
			b.WriteByte('?')
		}
		n++
	}
	if !math.IsNaN(score) && !math.IsInf(score, 0) {
		scoreText = fmt.Sprintf("%.2f", score)
	}
	return strings.TrimSpace(b.String()), scoreText
}

// tagLines fits a label and its score into lines of at most width
// characters: on one line when they fit; else the label alone when it
// fits (the score is the lesser part); else the label wrapped at spaces,
// a word longer than a line split across lines — never cut short, so
// "yellow box" is never drawn as "yellow".
func tagLines(label, score string, width int) []string {
	if width <= 0 {
		return nil
	}
	one := strings.TrimSpace(label + " " + score)
	if len(one) <= width {
		return []string{one}
	}
	if len(label) <= width {
		return []string{label}
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(label) {
		for len(w) > width { // a word longer than a line
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			lines = append(lines, w[:width])
			w = w[width:]
		}
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// drawTag writes a label (and score) on a filled tag of colour col at the
// top-left of r: above the box when there is room, inside it otherwise,
// and always inside the image. A label wider than the image wraps onto
// more lines instead of being cut.
func drawTag(dst *image.RGBA, r image.Rectangle, label, score string, col color.RGBA) {
	if label == "" && score == "" {
		return
	}
	b := dst.Bounds()
	s := labelScale(b)
	face := basicfont.Face7x13
	const pad = 2
	charW := face.Advance
	maxChars := (b.Dx()/s - 2*pad) / charW
	lines := tagLines(label, score, maxChars)
	maxLines := (b.Dy()/s - 2*pad) / face.Height
	if len(lines) == 0 || maxLines <= 0 {
		return // the image is too small for any text
	}
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	widest := 0
	for _, l := range lines {
		widest = max(widest, len(l))
	}
	tw, th := (widest*charW+2*pad)*s, (len(lines)*face.Height+2*pad)*s
	x := r.Min.X
	y := r.Min.Y - th
	if y < b.Min.Y {
		y = r.Min.Y // no room above: put it inside the box
	}
	x = max(b.Min.X, min(x, b.Max.X-tw))
	y = max(b.Min.Y, min(y, b.Max.Y-th))
	tag := image.Rect(x, y, x+tw, y+th)
	draw.Draw(dst, tag, image.NewUniform(col), image.Point{}, draw.Src)
	// Render at 1× into an alpha mask, then magnify it pixel by pixel so
	// the bitmap font stays crisp.
	small := image.NewAlpha(image.Rect(0, 0, tw/s, th/s))
	for i, l := range lines {
		d := font.Drawer{Dst: small, Src: image.Opaque, Face: face, Dot: fixed.P(pad, pad+face.Ascent+i*face.Height)}
		d.DrawString(l)
	}
	fg := textColour(col)
	for sy := range small.Rect.Dy() {
		for sx := range small.Rect.Dx() {
			if small.AlphaAt(sx, sy).A < 0x80 {
				continue
			}
			px := image.Rect(x+sx*s, y+sy*s, x+(sx+1)*s, y+(sy+1)*s).Intersect(b)
			draw.Draw(dst, px, image.NewUniform(fg), image.Point{}, draw.Src)
		}
	}
}

// textColour picks black or white, whichever contrasts more with bg.
func textColour(bg color.RGBA) color.RGBA {
	if 0.299*float64(bg.R)+0.587*float64(bg.G)+0.114*float64(bg.B) > 150 {
		return color.RGBA{0, 0, 0, 255}
	}
	return color.RGBA{255, 255, 255, 255}
}

package endpoints

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Limits that keep a hostile or runaway result from stalling the drawing.
const (
	maxDetections   = 1000
	maxMasks        = 256
	maxLabelRunes   = 48
	maxDetectionsIn = 4 << 20 // bytes of detection text parsed
)

// Detection is one detected object: what it is, how sure the detector was
// and where it is, in image pixels.
type Detection struct {
	Label string
	// Score is the confidence in [0, 1]; NaN when the detector gave none.
	Score float64
	// Box is xmin, ymin, xmax, ymax.
	Box [4]float64
}

// String renders the detection as endpoints render it for people and the
// draw-boxes parser reads it back: "cat (0.98) at [12,30,200,220]".
func (d Detection) String() string {
	var b strings.Builder
	b.WriteString(d.Label)
	if !math.IsNaN(d.Score) {
		fmt.Fprintf(&b, " (%.2f)", d.Score)
	}
	fmt.Fprintf(&b, " at [%s,%s,%s,%s]", fmtCoord(d.Box[0]), fmtCoord(d.Box[1]), fmtCoord(d.Box[2]), fmtCoord(d.Box[3]))
	return b.String()
}

func fmtCoord(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ParseDetections reads detections from any of the shapes they reach
// Chorus in:
//   - Hugging Face JSON: [{"score":0.98,"label":"cat","box":{"xmin":..,"ymin":..,"xmax":..,"ymax":..}}]
//   - HuggingGPT (JARVIS) results: {"generated image with predicted box": "...", "predicted": [...]},
//     also as a Python dict repr with single quotes, None and nan
//   - grounding output: {"boxes": [[x1,y1,x2,y2], ...], "scores"|"logits": [...], "labels"|"phrases": [...]}
//   - the readable text endpoints render: "2 objects: cat (0.98) at [12,30,200,220], dog (0.71) at [...]"
//
// Entries without a usable box are skipped. The error wraps ErrBadInput and
// says what was expected when no box could be read at all.
func ParseDetections(text string) ([]Detection, error) {
	if len(text) > maxDetectionsIn {
		text = text[:maxDetectionsIn]
	}
	if dets, ok := parseDetectionsJSON(text); ok && len(dets) > 0 {
		return capDetections(dets), nil
	}
	if dets := parseDetectionsText(text); len(dets) > 0 {
		return capDetections(dets), nil
	}
	return nil, fmt.Errorf("%w: no detection boxes found in %q — want Hugging Face detection JSON "+
		`([{"label":"cat","score":0.98,"box":{"xmin":12,"ymin":30,"xmax":200,"ymax":220}}]) `+
		"or text such as \"cat (0.98) at [12,30,200,220]\"", ErrBadInput, excerpt(text, 80))
}

func capDetections(d []Detection) []Detection {
	if len(d) > maxDetections {
		return d[:maxDetections]
	}
	return d
}

// excerpt shortens s for an error message.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// parseDetectionsJSON finds the first JSON (or Python-literal) value in text
// and reads detections from it.
func parseDetectionsJSON(text string) ([]Detection, bool) {
	start := strings.IndexAny(text, "[{")
	if start < 0 {
		return nil, false
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(text[start:]))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		conv, ok := pythonToJSON(text[start:])
		if !ok {
			return nil, false
		}
		dec = json.NewDecoder(strings.NewReader(conv))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
	}
	dets := detectionsFrom(v, 0)
	return dets, dets != nil
}

// detectionsFrom walks a decoded JSON value for detections.
func detectionsFrom(v any, depth int) []Detection {
	if depth > 4 {
		return nil
	}
	switch t := v.(type) {
	case []any:
		var out []Detection
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				if d, ok := detectionFromMap(m); ok {
					out = append(out, d)
					continue
				}
			}
			// A batch answer nests one list per input image.
			if inner, ok := e.([]any); ok {
				out = append(out, detectionsFrom(inner, depth+1)...)
			}
		}
		return out
	case map[string]any:
		for _, key := range []string{"predicted", "predictions", "detections", "objects", "results", "result", "output"} {
			if inner, ok := t[key]; ok {
				if d := detectionsFrom(inner, depth+1); len(d) > 0 {
					return d
				}
			}
		}
		if d, ok := detectionFromMap(t); ok {
			return []Detection{d}
		}
		return columnarDetections(t)
	}
	return nil
}

// detectionFromMap reads one {"label","score","box"} object.
func detectionFromMap(m map[string]any) (Detection, bool) {
	raw, ok := m["box"]
	if !ok {
		raw, ok = m["bbox"]
	}
	if !ok {
		return Detection{}, false
	}
	box, ok := boxFrom(raw)
	if !ok {
		return Detection{}, false
	}
	d := Detection{Label: labelFrom(m), Score: math.NaN(), Box: box}
	for _, k := range []string{"score", "confidence", "probability"} {
		if s, ok := numberFrom(m[k]); ok {
			d.Score = s
			break
		}
	}
	return d, true
}

func labelFrom(m map[string]any) string {
	for _, k := range []string{"label", "name", "class", "phrase"} {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return "object"
}

// boxFrom reads {"xmin","ymin","xmax","ymax"} or [x1,y1,x2,y2].
func boxFrom(v any) ([4]float64, bool) {
	var b [4]float64
	switch t := v.(type) {
	case map[string]any:
		for i, k := range []string{"xmin", "ymin", "xmax", "ymax"} {
			f, ok := numberFrom(t[k])
			if !ok {
				return b, false
			}
			b[i] = f
		}
	case []any:
		if len(t) != 4 {
			return b, false
		}
		for i, e := range t {
			f, ok := numberFrom(e)
			if !ok {
				return b, false
			}
			b[i] = f
		}
	default:
		return b, false
	}
	return b, true
}

// numberFrom reads a finite number from a decoded JSON value.
func numberFrom(v any) (float64, bool) {
	var f float64
	switch t := v.(type) {
	case json.Number:
		var err error
		if f, err = t.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = t
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(t), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// columnarDetections reads the grounding-model shape: parallel lists of
// boxes, scores and labels.
func columnarDetections(m map[string]any) []Detection {
	boxes, ok := m["boxes"].([]any)
	if !ok {
		return nil
	}
	list := func(keys ...string) []any {
		for _, k := range keys {
			if l, ok := m[k].([]any); ok {
				return l
			}
		}
		return nil
	}
	scores, labels := list("scores", "logits", "confidences"), list("labels", "phrases", "names")
	var out []Detection
	for i, bv := range boxes {
		box, ok := boxFrom(bv)
		if !ok {
			continue
		}
		d := Detection{Label: "object", Score: math.NaN(), Box: box}
		if i < len(scores) {
			if s, ok := numberFrom(scores[i]); ok {
				d.Score = s
			}
		}
		if i < len(labels) {
			if s, ok := labels[i].(string); ok && strings.TrimSpace(s) != "" {
				d.Label = s
			}
		}
		out = append(out, d)
	}
	return out
}

// pythonToJSON rewrites a Python literal (as HuggingGPT prints results:
// single-quoted strings, None, True, False, nan) as JSON. ok is false when
// the text has an unterminated string.
func pythonToJSON(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			var lit strings.Builder
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						lit.WriteByte('\n')
					case 't':
						lit.WriteByte('\t')
					default:
						lit.WriteByte(s[j])
					}
					continue
				}
				lit.WriteByte(s[j])
			}
			if j >= len(s) {
				return "", false
			}
			q, _ := json.Marshal(lit.String())
			b.Write(q)
			i = j + 1
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			switch w := s[i:j]; w {
			case "None", "nan", "NaN", "inf", "Infinity":
				b.WriteString("null")
			case "True":
				b.WriteString("true")
			case "False":
				b.WriteString("false")
			default:
				b.WriteString(w)
			}
			i = j
		case c == '(':
			b.WriteByte('[')
			i++
		case c == ')':
			b.WriteByte(']')
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), true
}

var (
	// reTextBox matches a box written as [x1,y1,x2,y2] or (x1, y1, x2, y2).
	reTextBox = regexp.MustCompile(`[\[(]\s*(-?[\d.]+(?:[eE][-+]?\d+)?)\s*,\s*(-?[\d.]+(?:[eE][-+]?\d+)?)\s*,\s*(-?[\d.]+(?:[eE][-+]?\d+)?)\s*,\s*(-?[\d.]+(?:[eE][-+]?\d+)?)\s*[\])]`)
	// reTextScores match a confidence, most specific first: "(0.98)",
	// "(98%)", "98%", "score 0.98", a bare "0.98".
	reTextScores = []*regexp.Regexp{
		regexp.MustCompile(`\(\s*(?:score|conf(?:idence)?|p)?\s*[=:]?\s*(\d*\.?\d+)\s*(%)?\s*\)`),
		regexp.MustCompile(`(\d*\.?\d+)\s*(%)`),
		regexp.MustCompile(`(?i)(?:score|conf(?:idence)?)\s*[=:]?\s*(\d*\.?\d+)()`),
		regexp.MustCompile(`(?:^|[^\d.])(0?\.\d+|1\.0+)()(?:$|[^\d.])`),
	}
	reBullet = regexp.MustCompile(`^\s*(?:[-*•·]|\d+[.)])\s+`)
	reFiller = regexp.MustCompile(`(?i)(?:\s+|^)(?:at|in|box|bbox|located|found|@|=|-|–|:)\s*$`)
)

// parseDetectionsText reads detections from readable text: each box
// written as [x1,y1,x2,y2], with the label and score in the words before it.
func parseDetectionsText(text string) []Detection {
	locs := reTextBox.FindAllStringSubmatchIndex(text, maxDetections)
	var out []Detection
	prev := 0
	for _, loc := range locs {
		var box [4]float64
		ok := true
		for i := range 4 {
			f, err := strconv.ParseFloat(text[loc[2+2*i]:loc[3+2*i]], 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				ok = false
				break
			}
			box[i] = f
		}
		seg := text[prev:loc[0]]
		prev = loc[1]
		if !ok {
			continue
		}
		label, score := labelAndScore(seg)
		out = append(out, Detection{Label: label, Score: score, Box: box})
	}
	return out
}

// labelAndScore reads "cat (0.98) at" or "- person: 97%" from the text
// between two boxes.
func labelAndScore(seg string) (string, float64) {
	// Only the last clause belongs to this box.
	if i := strings.LastIndexAny(seg, ",;\n"); i >= 0 {
		seg = seg[i+1:]
	}
	score := math.NaN()
	scoreAt := []int(nil)
	for _, re := range reTextScores {
		m := re.FindStringSubmatchIndex(seg)
		if m == nil {
			continue
		}
		f, err := strconv.ParseFloat(seg[m[2]:m[3]], 64)
		if err != nil {
			continue
		}
		if m[5] > m[4] || f > 1 {
			f /= 100 // a percentage
		}
		if f >= 0 && f <= 1 {
			score, scoreAt = f, m
			break
		}
	}
	// "2 objects: cat (0.98) at" — the label follows the colon; "cat: 0.98"
	// — it precedes it. Whichever side has words is the label.
	pick := seg
	if i := strings.LastIndex(seg, ":"); i >= 0 {
		after, before := seg[i+1:], seg[:i]
		if scoreAt != nil && scoreAt[0] > i {
			after = seg[i+1:scoreAt[0]] + seg[scoreAt[1]:]
		}
		if cleanLabel(after) != "" {
			pick = after
		} else {
			pick = before
		}
	} else if scoreAt != nil {
		pick = seg[:scoreAt[0]] + seg[scoreAt[1]:]
	}
	label := cleanLabel(pick)
	if label == "" {
		label = "object"
	}
	return label, score
}

// cleanLabel strips list bullets, brackets, filler words and quotes.
func cleanLabel(s string) string {
	s = reBullet.ReplaceAllString(s, "")
	s = strings.NewReplacer("(", " ", ")", " ", "[", " ", "]", " ", "{", " ", "}", " ").Replace(s)
	for {
		t := reFiller.ReplaceAllString(strings.TrimSpace(s), "")
		if t == s {
			break
		}
		s = t
	}
	return strings.Trim(strings.TrimSpace(s), ` "'.:,;=-*`+"`")
}

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
		text := tagText(d.Label, d.Score)
		tags = append(tags, func() { drawTag(dst, r, text, col) })
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

// tagText renders a label for the bitmap font, which has ASCII glyphs only.
func tagText(label string, score float64) string {
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
		fmt.Fprintf(&b, " %.2f", score)
	}
	return strings.TrimSpace(b.String())
}

// drawTag writes text on a filled tag of colour col at the top-left of r:
// above the box when there is room, inside it otherwise, and always inside
// the image, truncated if the image is narrower than the text.
func drawTag(dst *image.RGBA, r image.Rectangle, text string, col color.RGBA) {
	if text == "" {
		return
	}
	b := dst.Bounds()
	s := labelScale(b)
	face := basicfont.Face7x13
	const pad = 2
	charW := face.Advance
	maxChars := (b.Dx()/s - 2*pad) / charW
	if maxChars <= 0 || b.Dy() < (face.Height+2*pad)*s {
		return // the image is too small for any text
	}
	if len(text) > maxChars {
		text = text[:maxChars]
	}
	tw, th := (len(text)*charW+2*pad)*s, (face.Height+2*pad)*s
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
	d := font.Drawer{Dst: small, Src: image.Opaque, Face: face, Dot: fixed.P(pad, pad+face.Ascent)}
	d.DrawString(text)
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
			text := tagText(m.Label, m.Score)
			tags = append(tags, func() { drawTag(dst, bbox, text, col) })
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

// Annotate draws a vision task's result onto its input image, as HuggingGPT
// shows detections and segments: after object-detection and
// zero-shot-object-detection it draws the boxes in res.Data (Hugging Face
// shape; res.Text as a fallback); after image-segmentation and
// mask-generation it overlays the masks in res.Data
// ([{"score","label","mask": base64 PNG}]) or, failing that, the mask images
// among res.Blobs. ok is false when the task has nothing to draw; an error
// (wrapping ErrBadInput) means there was something to draw but the image or
// the masks could not be read.
func Annotate(task string, imagePath string, res Result) (Blob, bool, error) {
	switch task {
	case "object-detection", "zero-shot-object-detection":
		return annotateDetections(imagePath, res)
	case "image-segmentation", "mask-generation":
		return annotateSegments(imagePath, res)
	}
	return Blob{}, false, nil
}

func annotateDetections(imagePath string, res Result) (Blob, bool, error) {
	var dets []Detection
	if len(res.Data) > 0 {
		dets, _ = ParseDetections(string(res.Data))
	}
	if len(dets) == 0 && res.Text != "" {
		dets, _ = ParseDetections(res.Text)
	}
	if len(dets) == 0 {
		return Blob{}, false, nil
	}
	img, _, err := LoadImage(imagePath)
	if err != nil {
		return Blob{}, false, err
	}
	out, drawn := DrawDetections(img, denormalise(dets, img.Bounds()))
	if len(drawn) == 0 {
		return Blob{}, false, nil
	}
	blob, err := encodePNG(out)
	return blob, err == nil, err
}

// denormalise scales boxes given as fractions of the image (every
// coordinate in [0, 1], one with a fraction) to pixels.
func denormalise(dets []Detection, b image.Rectangle) []Detection {
	frac := false
	for _, d := range dets {
		for _, v := range d.Box {
			if v < 0 || v > 1 {
				return dets
			}
			if v != math.Trunc(v) {
				frac = true
			}
		}
	}
	if !frac {
		return dets
	}
	out := make([]Detection, len(dets))
	for i, d := range dets {
		d.Box = [4]float64{d.Box[0] * float64(b.Dx()), d.Box[1] * float64(b.Dy()), d.Box[2] * float64(b.Dx()), d.Box[3] * float64(b.Dy())}
		out[i] = d
	}
	return out
}

// hfSegment is one element of the Hugging Face image-segmentation answer.
type hfSegment struct {
	Score *float64 `json:"score"`
	Label string   `json:"label"`
	Mask  string   `json:"mask"`
}

func annotateSegments(imagePath string, res Result) (Blob, bool, error) {
	masks, found, err := segmentsFrom(res)
	if !found {
		return Blob{}, false, nil
	}
	if len(masks) == 0 {
		return Blob{}, false, err
	}
	img, _, lerr := LoadImage(imagePath)
	if lerr != nil {
		return Blob{}, false, lerr
	}
	out, cover := OverlayMasks(img, masks)
	drawn := false
	for _, c := range cover {
		drawn = drawn || c > 0
	}
	if !drawn {
		return Blob{}, false, nil
	}
	blob, err := encodePNG(out)
	return blob, err == nil, err
}

// segmentsFrom decodes the masks of a segmentation result. found reports
// whether the result carried masks at all; err explains masks that could
// not be decoded when none could.
func segmentsFrom(res Result) (masks []Mask, found bool, err error) {
	var segs []hfSegment
	if len(res.Data) > 0 {
		if json.Unmarshal(res.Data, &segs) != nil {
			// {"masks": [...], "scores": [...]} as SAM-style servers answer.
			var cols struct {
				Masks  []string   `json:"masks"`
				Scores []*float64 `json:"scores"`
				Labels []string   `json:"labels"`
			}
			if json.Unmarshal(res.Data, &cols) == nil {
				for i, m := range cols.Masks {
					s := hfSegment{Mask: m}
					if i < len(cols.Scores) {
						s.Score = cols.Scores[i]
					}
					if i < len(cols.Labels) {
						s.Label = cols.Labels[i]
					}
					segs = append(segs, s)
				}
			}
		}
	}
	var errs []error
	for i, s := range segs {
		if s.Mask == "" {
			continue
		}
		found = true
		if len(masks) == maxMasks {
			break
		}
		m, err := decodeMask(s.Mask)
		if err != nil {
			errs = append(errs, fmt.Errorf("mask %d (%s): %w", i+1, s.Label, err))
			continue
		}
		score := math.NaN()
		if s.Score != nil {
			score = *s.Score
		}
		masks = append(masks, Mask{Label: s.Label, Score: score, Image: m})
	}
	if !found {
		for i, bl := range res.Blobs {
			if !strings.HasPrefix(bl.MIME, "image/") {
				continue
			}
			m, _, err := DecodeImage(bl.Data)
			if err != nil {
				errs = append(errs, fmt.Errorf("mask image %d: %w", i+1, err))
				continue
			}
			// A server may return a rendered picture instead of masks;
			// only binary images are masks.
			if !isBinaryMask(m) {
				continue
			}
			found = true
			masks = append(masks, Mask{Score: math.NaN(), Image: m})
			if len(masks) == maxMasks {
				break
			}
		}
		found = found || len(errs) > 0
	}
	return masks, found, errors.Join(errs...)
}

// decodeMask decodes a base64 mask image (a data: URI prefix is allowed).
func decodeMask(s string) (image.Image, error) {
	if i := strings.Index(s, ";base64,"); i >= 0 && strings.HasPrefix(s, "data:") {
		s = s[i+len(";base64,"):]
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(strings.TrimSpace(s)); err != nil {
			return nil, fmt.Errorf("%w: mask is not base64: %v", ErrBadInput, err)
		}
	}
	m, _, err := DecodeImage(data)
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

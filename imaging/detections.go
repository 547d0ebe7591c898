package imaging

import (
	"encoding/json"
	"fmt"
	"image"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
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
	// reFiller matches a trailing word that introduces a box rather than
	// naming the object: "cat at", "dog bbox", "cup bounding box". A bare
	// "box" is not one — "yellow box" and "cardboard box" are objects — so
	// it goes only when nothing else is left ("box [..]" after a colon).
	reFiller = regexp.MustCompile(`(?i)(?:\s+|^)(?:at|in|bbox|bounding\s+box|located|found|@|=|-|–|:)\s*$|^\s*box\s*$`)
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

// Denormalise scales boxes given as fractions of the image (every
// coordinate in [0, 1], one with a fraction) to pixels.
func Denormalise(dets []Detection, b image.Rectangle) []Detection {
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

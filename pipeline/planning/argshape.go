package planning

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// shape is what a structured argument holds: the argument a model most
// often writes as several numbers ({width: 32, height: 32}), a list
// ([32, 32]) or an object ({"x": 4, "y": 9}) instead of the one string
// the skill reads.
type shape int

const (
	shapeNone shape = iota
	// shapeBox is a box argument: "x1,y1,x2,y2".
	shapeBox
	// shapeSize is a text argument taking a target size ("32x32",
	// "width 800", "scale 0.5", "50%"): one whose name or synonyms
	// include "size" (image-resize's text).
	shapeSize
	// shapePoint is a point argument: "x,y".
	shapePoint
)

// argShape tells which structured value a takes.
func argShape(a skills.Arg) shape {
	switch {
	case a.Type == skills.Box:
		return shapeBox
	case a.Type == skills.Point:
		return shapePoint
	case a.Type == skills.Text && slices.ContainsFunc(append([]string{a.Name}, a.Synonyms...), func(n string) bool { return partKey(n) == "size" }):
		return shapeSize
	}
	return shapeNone
}

// layout is one way models split a structured argument into named
// numbers, and how those numbers are written as the argument.
type layout struct {
	shape shape
	parts []string
	build func(n []float64) string
}

// layouts are tried in order; the first whose parts are all there wins.
var layouts = []layout{
	{shapeBox, []string{"x1", "y1", "x2", "y2"}, joinNums},
	{shapeBox, []string{"x0", "y0", "x1", "y1"}, joinNums},
	{shapeBox, []string{"xmin", "ymin", "xmax", "ymax"}, joinNums},
	{shapeBox, []string{"left", "top", "right", "bottom"}, joinNums},
	{shapeBox, []string{"x", "y", "width", "height"}, func(n []float64) string { return joinNums([]float64{n[0], n[1], n[0] + n[2], n[1] + n[3]}) }},
	{shapePoint, []string{"x", "y"}, joinNums},
	{shapeSize, []string{"width", "height"}, func(n []float64) string { return num(n[0]) + "x" + num(n[1]) }},
	{shapeSize, []string{"width"}, func(n []float64) string { return "width " + num(n[0]) }},
	{shapeSize, []string{"height"}, func(n []float64) string { return "height " + num(n[0]) }},
	{shapeSize, []string{"scale"}, func(n []float64) string { return "scale " + num(n[0]) }},
	{shapeSize, []string{"percent"}, func(n []float64) string { return num(n[0]) + "%" }},
}

// partAliases are the other names of a layout's parts.
var partAliases = map[string]string{
	"w": "width", "h": "height", "factor": "scale", "ratio": "scale", "percentage": "percent", "pct": "percent",
}

var (
	// partPrefix and partSuffix are what models put around a part's name
	// (new_width, target_h, crop_x1, width_px).
	partPrefix = regexp.MustCompile(`^(?:new|target|output|desired|resized?|final|max|image|img|box|bbox|crop|region|point|click)`)
	partSuffix = regexp.MustCompile(`(?:px|pixels?|value)$`)
	// numberValue is a number as models write one: 32, "32", "32px",
	// "32 pixels", "0.5", "50%" (the percent sign is read by its key).
	numberValue = regexp.MustCompile(`^\s*(-?\d+(?:\.\d+)?)\s*(?:px|pixels?|%)?\s*$`)
	// numberList is two or more numbers and nothing else: "32,32",
	// "[32, 32]", "(4; 9)".
	aNumber    = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
	numberList = regexp.MustCompile(`^\s*[\[(]?\s*-?\d+(?:\.\d+)?(?:\s*[,;\s]\s*-?\d+(?:\.\d+)?)+\s*[\])]?\s*$`)
)

// partKey folds an argument name to the part it may be: lower case, no
// separators, without the prefixes and suffixes models add.
func partKey(name string) string {
	k := strings.NewReplacer("_", "", "-", "", " ", "", ".", "").Replace(strings.ToLower(strings.TrimSpace(name)))
	if base := partSuffix.ReplaceAllString(partPrefix.ReplaceAllString(k, ""), ""); base != "" {
		k = base
	}
	if a, ok := partAliases[k]; ok {
		k = a
	}
	return k
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func joinNums(n []float64) string {
	s := make([]string, len(n))
	for i, f := range n {
		s[i] = num(f)
	}
	return strings.Join(s, ",")
}

// parts reads named numbers: part name → the number and the plan's
// name for it.
type parts map[string]struct {
	key string
	n   float64
}

func (p parts) add(key, val string) {
	m := numberValue.FindStringSubmatch(val)
	if m == nil {
		return
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return
	}
	p[partKey(key)] = struct {
		key string
		n   float64
	}{key, f}
}

// assemble writes p as an argument of shape sh by the first layout whose
// parts are all in p, returning the plan's names it used.
func (p parts) assemble(sh shape) (string, []string, bool) {
	for _, l := range layouts {
		if l.shape != sh {
			continue
		}
		ns := make([]float64, 0, len(l.parts))
		var used []string
		for _, name := range l.parts {
			x, ok := p[name]
			if !ok {
				break
			}
			ns, used = append(ns, x.n), append(used, x.key)
		}
		if len(ns) == len(l.parts) {
			return l.build(ns), used, true
		}
	}
	return "", nil, false
}

// reshape rewrites a structured argument written whole under key (its
// name or a synonym) in the form its skill reads: an object of parts
// ({"width":32,"height":32} → 32x32, {"x":4,"y":9} → 4,9), a size as a
// list (32,32 → 32x32), a bare number under a size's name for one part
// (scale: 0.5 → scale 0.5). Anything else comes back unchanged.
func reshape(sh shape, key, val string) string {
	if strings.HasPrefix(strings.TrimSpace(val), "{") {
		var obj map[string]any
		if json.Unmarshal([]byte(val), &obj) != nil {
			return val
		}
		p := parts{}
		for k, x := range obj {
			if s, ok := argString(x); ok {
				p.add(k, s)
			}
		}
		if out, _, ok := p.assemble(sh); ok {
			return out
		}
		return val
	}
	if sh != shapeSize {
		return val
	}
	if numberList.MatchString(val) {
		if ns := aNumber.FindAllString(val, -1); len(ns) == 2 {
			return ns[0] + "x" + ns[1]
		}
		return val
	}
	p := parts{}
	p.add(key, val)
	if out, _, ok := p.assemble(sh); ok && partKey(key) != "size" {
		return out
	}
	return val
}

// composeArgs repairs the structured arguments of t before their names are
// checked: one written whole in another form is rewritten (reshape), and
// one the plan split into parts its skill does not know (width and
// height, x and y, x1…y2) is put together from them, with a note each
// time. Parts that make nothing are left for fixArgNames to report.
func (v *validator) composeArgs(t *flow.Task, s *skills.Skill) {
	if s.Tool != nil {
		return // an MCP tool's schema says what its arguments are
	}
	args := slices.Clone(s.Args)
	// Boxes before points: x, y, width and height are a box, not a point
	// and two strays.
	slices.SortStableFunc(args, func(a, b skills.Arg) int { return int(argShape(a)) - int(argShape(b)) })
	for _, a := range args {
		sh := argShape(a)
		if sh == shapeNone {
			continue
		}
		whole := false
		p := parts{}
		for _, k := range slices.Sorted(maps.Keys(t.Args)) {
			if named, ok := s.ArgNamed(k); ok {
				if named.Name == a.Name {
					whole = true
					if out := reshape(sh, k, t.Args[k]); out != t.Args[k] {
						v.note("task %d: read %s %q as %q", t.ID, k, t.Args[k], out)
						t.Args[k] = out
					}
				}
				continue // an argument of the skill, not a part
			}
			p.add(k, t.Args[k])
		}
		if whole {
			continue
		}
		out, used, ok := p.assemble(sh)
		if !ok {
			continue
		}
		read := make([]string, len(used))
		for i, k := range used {
			read[i] = k + "=" + t.Args[k]
			delete(t.Args, k)
		}
		t.Args[a.Name] = out
		v.note("task %d: read %s as %s %q", t.ID, strings.Join(read, ", "), a.Name, out)
	}
}

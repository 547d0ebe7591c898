package endpoints

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
)

func sameScore(a, b float64) bool {
	return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9
}

func TestParseDetections(t *testing.T) {
	nan := math.NaN()
	cat := Detection{"cat", 0.98, [4]float64{12, 30, 200, 220}}
	dog := Detection{"dog", 0.71, [4]float64{220, 40, 300, 230}}
	cases := map[string]struct {
		in   string
		want []Detection
	}{
		"hugging face json": {
			`[{"score":0.98,"label":"cat","box":{"xmin":12,"ymin":30,"xmax":200,"ymax":220}},
			  {"score":0.71,"label":"dog","box":{"xmin":220,"ymin":40,"xmax":300,"ymax":230}}]`,
			[]Detection{cat, dog},
		},
		"jarvis result": {
			`{"generated image with predicted box": "/images/ab12.jpg", "predicted": [{"score": 0.98, "label": "cat", "box": {"xmin": 12, "ymin": 30, "xmax": 200, "ymax": 220}}]}`,
			[]Detection{cat},
		},
		"jarvis python repr": {
			`{'generated image with predicted box': '/images/ab12.jpg', 'predicted': [{'score': 0.98, 'label': 'cat', 'box': {'xmin': 12, 'ymin': 30, 'xmax': 200, 'ymax': 220}}, {'score': None, 'label': "person's hat", 'box': {'xmin': 1, 'ymin': 2, 'xmax': 3, 'ymax': 4}}]}`,
			[]Detection{cat, {"person's hat", nan, [4]float64{1, 2, 3, 4}}},
		},
		"python json with NaN score": {
			`[{"score": NaN, "label": "cat", "box": {"xmin": 12, "ymin": 30, "xmax": 200, "ymax": 220}}]`,
			[]Detection{{"cat", nan, cat.Box}},
		},
		"embedded in prose": {
			`The detector answered: [{"score":0.98,"label":"cat","box":{"xmin":12,"ymin":30,"xmax":200,"ymax":220}}] — done.`,
			[]Detection{cat},
		},
		"box as array": {
			`[{"label":"cat","score":"0.98","box":[12,30,200,220]}]`,
			[]Detection{cat},
		},
		"batch": {
			`[[{"score":0.98,"label":"cat","box":{"xmin":12,"ymin":30,"xmax":200,"ymax":220}}]]`,
			[]Detection{cat},
		},
		"grounding columns": {
			`{"boxes": [[12,30,200,220],[220,40,300,230]], "logits": [0.98, 0.71], "phrases": ["cat", "dog"]}`,
			[]Detection{cat, dog},
		},
		"readable text": {
			"2 objects: cat (0.98) at [12,30,200,220], dog (0.71) at [220,40,300,230]",
			[]Detection{cat, dog},
		},
		"readable list with percentages": {
			"Detected:\n- cat: 98% [12, 30, 200, 220]\n- dog: 71% (220, 40, 300, 230)",
			[]Detection{cat, dog},
		},
		"numbered list, no scores": {
			"1. cat [12,30,200,220]\n2. dog [220,40,300,230]",
			[]Detection{{"cat", nan, cat.Box}, {"dog", nan, dog.Box}},
		},
		"label with a number": {
			"2 cats: traffic light (0.50) at [1,2,3,4]",
			[]Detection{{"traffic light", 0.5, [4]float64{1, 2, 3, 4}}},
		},
		"box only": {
			"[12,30,200,220]",
			[]Detection{{"object", nan, cat.Box}},
		},
		"entries without a box are skipped": {
			`[{"label":"cat","score":0.9},{"score":0.98,"label":"cat","box":{"xmin":12,"ymin":30,"xmax":200,"ymax":220}},{"label":"x","box":{"xmin":"nan"}}]`,
			[]Detection{cat},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseDetections(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d detections %v, want %v", len(got), got, c.want)
			}
			for i := range got {
				g, w := got[i], c.want[i]
				if g.Label != w.Label || g.Box != w.Box || !sameScore(g.Score, w.Score) {
					t.Errorf("detection %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestParseDetectionsErrors(t *testing.T) {
	for _, in := range []string{
		"", "   ", "no boxes here", "[]", "{}", `{"predicted": []}`,
		`[{"label":"cat","score":0.9}]`, `[{"label":"cat","box":{"xmin":1,"ymin":2}}]`,
		"cat (0.9) at [1,2,3]", `{'predicted': [{'label': 'cat', 'box': {'xmin': nan, 'ymin': 1, 'xmax': 2, 'ymax': 3}}]}`,
		`[{"label": "cat", "box": {"xmin": 1e999, "ymin": 0, "xmax": 1, "ymax": 1}}]`,
	} {
		dets, err := ParseDetections(in)
		if !errors.Is(err, ErrBadInput) {
			t.Errorf("ParseDetections(%q) = %v, %v; want ErrBadInput", in, dets, err)
			continue
		}
		if !strings.Contains(err.Error(), `"xmin"`) {
			t.Errorf("error %q does not show the expected shape", err)
		}
	}
}

func TestDetectionStringRoundTrips(t *testing.T) {
	dets := []Detection{{"cat", 0.98, [4]float64{12, 30, 200, 220}}, {"hot dog", math.NaN(), [4]float64{1.5, 2, 3, 4}}}
	var parts []string
	for _, d := range dets {
		parts = append(parts, d.String())
	}
	got, err := ParseDetections("2 objects: " + strings.Join(parts, ", "))
	if err != nil || len(got) != 2 {
		t.Fatalf("got %v, %v", got, err)
	}
	for i := range dets {
		if got[i].Label != dets[i].Label || got[i].Box != dets[i].Box || !sameScore(got[i].Score, dets[i].Score) {
			t.Errorf("round trip %d: %+v, want %+v", i, got[i], dets[i])
		}
	}
}

// changed reports whether pixel (x, y) differs between a and b.
func changed(a, b image.Image, x, y int) bool {
	r1, g1, b1, a1 := a.At(x, y).RGBA()
	r2, g2, b2, a2 := b.At(x, y).RGBA()
	return r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2
}

// checkBoxDrawn asserts that every pixel on box's outline changed and no
// pixel more than slack pixels from it did, apart from the label tag band
// (above the box, or inside its top when there is no room).
func checkBoxDrawn(t *testing.T, src, out image.Image, box image.Rectangle, slack int) {
	t.Helper()
	b := src.Bounds()
	box = box.Intersect(b)
	tagH := 13 + 4
	tag := image.Rect(box.Min.X-b.Dx(), box.Min.Y-tagH, b.Max.X, box.Min.Y)
	if box.Min.Y-tagH < 0 {
		tag = image.Rect(0, box.Min.Y, b.Max.X, box.Min.Y+tagH)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			d := rectDist(x, y, box)
			switch {
			case d == 0 && !changed(src, out, x, y):
				t.Fatalf("box border pixel (%d,%d) unchanged", x, y)
			case d > slack && changed(src, out, x, y) && !image.Pt(x, y).In(tag):
				t.Fatalf("pixel (%d,%d), %d px from the box, changed", x, y, d)
			}
		}
	}
}

func TestDrawDetectionsEveryInputFormat(t *testing.T) {
	src := gradientImage(320, 240)
	box := image.Rect(100, 100, 200, 180)
	inputs := map[string]string{
		"hugging face": `[{"score":0.98,"label":"cat","box":{"xmin":100,"ymin":100,"xmax":200,"ymax":180}}]`,
		"jarvis":       `{'generated image with predicted box': '/images/1.jpg', 'predicted': [{'score': 0.98, 'label': 'cat', 'box': {'xmin': 100, 'ymin': 100, 'xmax': 200, 'ymax': 180}}]}`,
		"text":         "1 object: cat (0.98) at [100,100,200,180]",
		"fractions":    "cat (0.98) at [0.3125,0.41666666666666667,0.625,0.75]",
	}
	dir := t.TempDir()
	path := writeImage(t, dir, "in.png", src, "png")
	ep := NewBuiltin()
	for name, text := range inputs {
		t.Run(name, func(t *testing.T) {
			res, err := ep.Infer(t.Context(), Request{Task: "draw-boxes", Model: ModelDrawBoxes, Args: map[string]string{"image": path, "text": text}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Blobs) != 1 || res.Blobs[0].MIME != "image/png" {
				t.Fatalf("blobs %v, want one PNG", res.Blobs)
			}
			out, _, err := DecodeImage(res.Blobs[0].Data)
			if err != nil {
				t.Fatal(err)
			}
			if out.Bounds() != src.Bounds() {
				t.Fatalf("output is %v, want %v", out.Bounds(), src.Bounds())
			}
			checkBoxDrawn(t, src, out, box, strokeWidth(src.Bounds()))
			if !strings.Contains(res.Text, "cat (0.98) at [100,100,200,180]") {
				t.Errorf("text %q does not report the box", res.Text)
			}
			var data []map[string]any
			if err := json.Unmarshal(res.Data, &data); err != nil || len(data) != 1 || data[0]["label"] != "cat" {
				t.Errorf("data %s, %v; want the drawn detection in HF shape", res.Data, err)
			}
		})
	}
}

func TestDrawDetectionsLabelIsReadable(t *testing.T) {
	src := rectImage(320, 240, image.Rectangle{}, color.White, color.RGBA{128, 128, 128, 255})
	out, drawn := DrawDetections(src, []Detection{{"cat", 0.98, [4]float64{100, 100, 200, 180}}})
	if len(drawn) != 1 {
		t.Fatalf("drew %d", len(drawn))
	}
	col := palette[0]
	fg := textColour(col)
	// The tag sits above the box: filled with the box colour, with text in
	// the contrasting colour on it.
	bg, text := 0, 0
	for y := 100 - 17; y < 100; y++ {
		for x := 100; x < 200; x++ {
			switch out.RGBAAt(x, y) {
			case col:
				bg++
			case fg:
				text++
			}
		}
	}
	if bg < 100 || text < 20 {
		t.Errorf("tag above the box has %d background and %d text pixels; want a filled tag with text", bg, text)
	}
}

func TestDrawDetectionsClipsAndKeepsLabelsInside(t *testing.T) {
	src := gradientImage(160, 120)
	cases := []struct {
		name string
		det  Detection
		want image.Rectangle
	}{
		{"top-left overflow", Detection{"a", 0.5, [4]float64{-50, -50, 60, 60}}, image.Rect(0, 0, 60, 60)},
		{"right edge", Detection{"a very long label that is wider than the box", 0.5, [4]float64{120, 50, 400, 100}}, image.Rect(120, 50, 160, 100)},
		{"reversed corners", Detection{"a", math.NaN(), [4]float64{90, 80, 30, 20}}, image.Rect(30, 20, 90, 80)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, drawn := DrawDetections(src, []Detection{c.det})
			if len(drawn) != 1 {
				t.Fatalf("drew %d boxes", len(drawn))
			}
			if got := pixelRect(drawn[0].Box); got != c.want {
				t.Errorf("clipped box %v, want %v", got, c.want)
			}
			checkBoxDrawn(t, src, out, c.want, strokeWidth(src.Bounds()))
		})
	}
	out, drawn := DrawDetections(src, []Detection{{"gone", 0.9, [4]float64{500, 500, 600, 600}}, {"gone", 0.9, [4]float64{-9, -9, -1, -1}}})
	if len(drawn) != 0 {
		t.Errorf("boxes outside the image were drawn: %v", drawn)
	}
	for y := range 120 {
		for x := range 160 {
			if changed(src, out, x, y) {
				t.Fatalf("pixel (%d,%d) changed with no box inside the image", x, y)
			}
		}
	}
}

func TestDrawDetectionsTinyAndHugeValues(t *testing.T) {
	for _, size := range []image.Point{{1, 1}, {3, 2}, {20, 10}} {
		src := gradientImage(size.X, size.Y)
		out, drawn := DrawDetections(src, []Detection{
			{"x", 1, [4]float64{0, 0, 1e300, 1e300}},
			{"y", math.Inf(1), [4]float64{-1e300, 0, 0.5, 0.5}},
		})
		if len(drawn) != 2 || out.Bounds() != src.Bounds() {
			t.Errorf("%v: drew %d, bounds %v", size, len(drawn), out.Bounds())
		}
	}
}

// circleMask is a w×h mask with a white disc of radius r at (cx, cy).
func circleMask(w, h, cx, cy, r int) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r {
				m.SetGray(x, y, color.Gray{255})
			}
		}
	}
	return m
}

func TestOverlayMasksTintsOnlyMaskedPixels(t *testing.T) {
	src := gradientImage(200, 150)
	mask := circleMask(200, 150, 80, 70, 40)
	out, cover := OverlayMasks(src, []Mask{{Score: math.NaN(), Image: mask}})
	inside := 0
	for y := range 150 {
		for x := range 200 {
			in := mask.GrayAt(x, y).Y != 0
			if in {
				inside++
			}
			if in != changed(src, out, x, y) {
				t.Fatalf("pixel (%d,%d): inside mask %v, changed %v", x, y, in, !in)
			}
		}
	}
	if want := float64(inside) / (200 * 150); math.Abs(cover[0]-want) > 1e-9 {
		t.Errorf("cover %f, want %f", cover[0], want)
	}
	// Tinted, not painted over: the centre keeps some of the picture and
	// moves toward the overlay colour.
	c, s, col := out.RGBAAt(80, 70), src.RGBAAt(80, 70), palette[0]
	if c == col || (int(c.R)-int(s.R))*(int(col.R)-int(s.R)) <= 0 {
		t.Errorf("centre %v from %v with colour %v: not a translucent tint", c, s, col)
	}
	// The outline is solid colour on the mask's edge.
	if got := out.RGBAAt(80, 70-40); got != col {
		t.Errorf("top of the disc is %v, want the outline colour %v", got, col)
	}
}

func TestOverlayMasksScalesAndColoursEachSegment(t *testing.T) {
	src := rectImage(200, 100, image.Rectangle{}, color.White, color.RGBA{128, 128, 128, 255})
	left := rectImage(100, 50, image.Rect(0, 0, 50, 50), color.White, color.Black)       // half size
	right := rectImage(200, 100, image.Rect(100, 0, 200, 100), color.White, color.Black) // full size, RGBA
	out, cover := OverlayMasks(src, []Mask{{Label: "sky", Score: 0.9, Image: left}, {Label: "sea", Score: math.NaN(), Image: right}})
	if math.Abs(cover[0]-0.5) > 0.01 || math.Abs(cover[1]-0.5) > 0.01 {
		t.Errorf("covers %v, want half each", cover)
	}
	a, b := out.RGBAAt(50, 80), out.RGBAAt(150, 80)
	if a == b || a == src.RGBAAt(50, 80) || b == src.RGBAAt(150, 80) {
		t.Errorf("segments tinted %v and %v; want two distinct tints", a, b)
	}
}

func TestAnnotateDetection(t *testing.T) {
	src := gradientImage(320, 240)
	dir := t.TempDir()
	path := writeImage(t, dir, "in.jpg", src, "jpeg")
	img, _, err := LoadImage(path)
	if err != nil {
		t.Fatal(err)
	}
	decoded := cloneRGBA(img) // compare against what the JPEG holds
	data := json.RawMessage(`[{"score":0.98,"label":"cat","box":{"xmin":100,"ymin":100,"xmax":200,"ymax":180}}]`)
	for _, task := range []string{"object-detection", "zero-shot-object-detection"} {
		blob, ok, err := Annotate(task, path, Result{Data: data, Text: "1 object: cat (0.98)"})
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v err=%v", task, ok, err)
		}
		out, format, err := DecodeImage(blob.Data)
		if err != nil || format != "png" || blob.MIME != "image/png" {
			t.Fatalf("%s: %s %s %v", task, format, blob.MIME, err)
		}
		checkBoxDrawn(t, decoded, out, image.Rect(100, 100, 200, 180), strokeWidth(src.Bounds()))
	}
	// Only readable text: still drawn.
	if _, ok, err := Annotate("object-detection", path, Result{Text: "cat (0.98) at [100,100,200,180]"}); !ok || err != nil {
		t.Errorf("text-only result: ok=%v err=%v", ok, err)
	}
	for name, res := range map[string]Result{
		"no data":       {Text: "no objects found"},
		"empty list":    {Data: json.RawMessage(`[]`)},
		"all outside":   {Data: json.RawMessage(`[{"label":"x","box":{"xmin":900,"ymin":900,"xmax":999,"ymax":999}}]`)},
		"not detection": {Data: json.RawMessage(`[{"label":"cat","score":0.9}]`)},
	} {
		if _, ok, err := Annotate("object-detection", path, res); ok || err != nil {
			t.Errorf("%s: ok=%v err=%v; want nothing to draw", name, ok, err)
		}
	}
	if _, ok, err := Annotate("object-detection", dir+"/missing.png", Result{Data: data}); ok || !errors.Is(err, ErrBadInput) {
		t.Errorf("missing image: ok=%v err=%v; want ErrBadInput", ok, err)
	}
	if _, ok, err := Annotate("image-classification", path, Result{Data: data}); ok || err != nil {
		t.Errorf("other task: ok=%v err=%v", ok, err)
	}
}

func pngBase64(t *testing.T, img image.Image) string {
	t.Helper()
	b, err := encodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Data)
}

func TestAnnotateSegmentation(t *testing.T) {
	src := gradientImage(120, 80)
	dir := t.TempDir()
	path := writeImage(t, dir, "in.png", src, "png")
	catMask := rectImage(120, 80, image.Rect(10, 10, 50, 70), color.White, color.Black)
	dogMask := rectImage(120, 80, image.Rect(70, 10, 110, 70), color.White, color.Black)
	segs, _ := json.Marshal([]map[string]any{
		{"score": 0.99, "label": "cat", "mask": pngBase64(t, catMask)},
		{"score": nil, "label": "dog", "mask": "data:image/png;base64," + pngBase64(t, dogMask)},
	})
	check := func(name string, res Result, masks ...*image.RGBA) {
		t.Helper()
		blob, ok, err := Annotate("image-segmentation", path, res)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v err=%v", name, ok, err)
		}
		out, _, err := DecodeImage(blob.Data)
		if err != nil {
			t.Fatal(err)
		}
		// Pixels away from every mask (and from the labels written at
		// their top-left corners) are untouched; pixels inside are tinted.
		for y := 30; y < 80; y++ {
			for x := range 120 {
				in := false
				for _, m := range masks {
					in = in || m.RGBAAt(x, y).R != 0
				}
				if in != changed(src, out, x, y) {
					t.Fatalf("%s: pixel (%d,%d) inside=%v changed=%v", name, x, y, in, !in)
				}
			}
		}
	}
	check("hf json", Result{Data: segs}, catMask, dogMask)
	cols, _ := json.Marshal(map[string]any{"masks": []string{pngBase64(t, catMask)}, "scores": []float64{0.9}})
	check("sam columns", Result{Data: cols}, catMask)
	maskBlob, _ := encodePNG(dogMask)
	check("mask blobs", Result{Blobs: []Blob{maskBlob}}, dogMask)
	blob, ok, err := Annotate("mask-generation", path, Result{Blobs: []Blob{maskBlob}})
	if !ok || err != nil || len(blob.Data) == 0 {
		t.Errorf("mask-generation: ok=%v err=%v", ok, err)
	}

	photo, _ := encodePNG(gradientImage(120, 80))
	for name, res := range map[string]Result{
		"no data":        {Text: "cat, dog"},
		"rendered photo": {Blobs: []Blob{photo}},
		"audio blob":     {Blobs: []Blob{{MIME: "audio/wav", Data: []byte("RIFF")}}},
		"black mask":     {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": pngBase64(t, image.NewGray(image.Rect(0, 0, 120, 80)))}})},
	} {
		if _, ok, err := Annotate("image-segmentation", path, res); ok || err != nil {
			t.Errorf("%s: ok=%v err=%v; want nothing to draw", name, ok, err)
		}
	}
	for name, res := range map[string]Result{
		"bad base64":   {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": "%%%not base64"}})},
		"not an image": {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": base64.StdEncoding.EncodeToString([]byte("hello"))}})},
		"gigantic":     {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": base64.StdEncoding.EncodeToString(pngWithSize(t, 30000, 30000))}})},
	} {
		if _, ok, err := Annotate("image-segmentation", path, res); ok || !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: ok=%v err=%v; want ErrBadInput", name, ok, err)
		}
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDrawBoxes feeds arbitrary detection text through the parser and the
// drawing: it must never panic, and whatever it accepts must be drawable.
func FuzzDrawBoxes(f *testing.F) {
	for _, s := range []string{
		`[{"score":0.98,"label":"cat","box":{"xmin":12,"ymin":30,"xmax":200,"ymax":220}}]`,
		`{'predicted': [{'score': None, 'label': 'cat', 'box': {'xmin': 1, 'ymin': 2, 'xmax': 3, 'ymax': 4}}]}`,
		"2 objects: cat (0.98) at [12,30,200,220], dog (71%) at [-5,1e9,3,4]",
		`{"boxes": [[0.1,0.2,0.3,0.4]], "phrases": ["ünïcødé ☃"]}`,
		"[1,2,3,4]", "((((", "['", "[1e308,1e308,-1e308,-1e308]",
	} {
		f.Add(s)
	}
	img := gradientImage(32, 24)
	f.Fuzz(func(t *testing.T, text string) {
		dets, err := ParseDetections(text)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error %v does not wrap ErrBadInput", err)
			}
			return
		}
		if len(dets) == 0 {
			t.Fatal("no error and no detections")
		}
		for _, d := range dets {
			for _, v := range d.Box {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite box %v", d.Box)
				}
			}
		}
		out, _ := DrawDetections(img, denormalise(dets, img.Bounds()))
		if out.Bounds() != img.Bounds() {
			t.Fatalf("output %v", out.Bounds())
		}
	})
}

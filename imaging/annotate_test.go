package imaging

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

func TestAnnotateDetection(t *testing.T) {
	src := testkit.GradientImage(320, 240)
	dir := t.TempDir()
	path := testkit.WriteImage(t, dir, "in.jpg", src, "jpeg")
	img, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	decoded := cloneRGBA(img) // compare against what the JPEG holds
	data := `[{"score":0.98,"label":"cat","box":{"xmin":100,"ymin":100,"xmax":200,"ymax":180}}]`
	blob, ok, err := AnnotateDetections(path, data, "1 object: cat (0.98)")
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	out, format, err := Decode(blob.Data)
	if err != nil || format != "png" || blob.MIME != "image/png" {
		t.Fatalf("%s %s %v", format, blob.MIME, err)
	}
	testkit.CheckBoxDrawn(t, decoded, out, image.Rect(100, 100, 200, 180), strokeWidth(src.Bounds()), 1)
	// Only readable text: still drawn.
	if _, ok, err := AnnotateDetections(path, "", "cat (0.98) at [100,100,200,180]"); !ok || err != nil {
		t.Errorf("text-only result: ok=%v err=%v", ok, err)
	}
	for name, sources := range map[string][]string{
		"no data":       {"", "no objects found"},
		"empty list":    {`[]`, ""},
		"all outside":   {`[{"label":"x","box":{"xmin":900,"ymin":900,"xmax":999,"ymax":999}}]`, ""},
		"not detection": {`[{"label":"cat","score":0.9}]`, ""},
		"nothing":       nil,
	} {
		if _, ok, err := AnnotateDetections(path, sources...); ok || err != nil {
			t.Errorf("%s: ok=%v err=%v; want nothing to draw", name, ok, err)
		}
	}
	if _, ok, err := AnnotateDetections(dir+"/missing.png", data); ok || !errors.Is(err, ErrBadInput) {
		t.Errorf("missing image: ok=%v err=%v; want ErrBadInput", ok, err)
	}
}

func TestAnnotateSegmentation(t *testing.T) {
	src := testkit.GradientImage(120, 80)
	dir := t.TempDir()
	path := testkit.WriteImage(t, dir, "in.png", src, "png")
	catMask := testkit.RectImage(120, 80, image.Rect(10, 10, 50, 70), color.White, color.Black)
	dogMask := testkit.RectImage(120, 80, image.Rect(70, 10, 110, 70), color.White, color.Black)
	segs, _ := json.Marshal([]map[string]any{
		{"score": 0.99, "label": "cat", "mask": pngBase64(t, catMask)},
		{"score": nil, "label": "dog", "mask": "data:image/png;base64," + pngBase64(t, dogMask)},
	})
	// answer is what a segmentation task returned: its JSON and its files.
	type answer struct {
		Data  json.RawMessage
		Text  string
		Blobs []File
	}
	check := func(name string, res answer, masks ...*image.RGBA) {
		t.Helper()
		blob, ok, err := AnnotateSegments(path, res.Data, res.Blobs)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v err=%v", name, ok, err)
		}
		out, _, err := Decode(blob.Data)
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
				if in != testkit.Changed(src, out, x, y) {
					t.Fatalf("%s: pixel (%d,%d) inside=%v testkit.Changed=%v", name, x, y, in, !in)
				}
			}
		}
	}
	check("hf json", answer{Data: segs}, catMask, dogMask)
	cols, _ := json.Marshal(map[string]any{"masks": []string{pngBase64(t, catMask)}, "scores": []float64{0.9}})
	check("sam columns", answer{Data: cols}, catMask)
	maskBlob, _ := EncodePNG(dogMask)
	check("mask blobs", answer{Blobs: []File{maskBlob}}, dogMask)

	photo, _ := EncodePNG(testkit.GradientImage(120, 80))
	for name, res := range map[string]answer{
		"no data":        {Text: "cat, dog"},
		"rendered photo": {Blobs: []File{photo}},
		"audio blob":     {Blobs: []File{{MIME: "audio/wav", Data: []byte("RIFF")}}},
		"black mask":     {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": pngBase64(t, image.NewGray(image.Rect(0, 0, 120, 80)))}})},
	} {
		if _, ok, err := AnnotateSegments(path, res.Data, res.Blobs); ok || err != nil {
			t.Errorf("%s: ok=%v err=%v; want nothing to draw", name, ok, err)
		}
	}
	for name, res := range map[string]answer{
		"bad base64":   {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": "%%%not base64"}})},
		"not an image": {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": base64.StdEncoding.EncodeToString([]byte("hello"))}})},
		"gigantic":     {Data: mustJSON(t, []map[string]any{{"label": "x", "mask": base64.StdEncoding.EncodeToString(testkit.PNGWithSize(t, 30000, 30000))}})},
	} {
		if _, ok, err := AnnotateSegments(path, res.Data, res.Blobs); ok || !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: ok=%v err=%v; want ErrBadInput", name, ok, err)
		}
	}
}

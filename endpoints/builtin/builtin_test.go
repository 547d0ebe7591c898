package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/skills"
)

var builtinPairs = map[string]string{
	"canny-control": ModelCanny,
	"draw-boxes":    ModelDrawBoxes,
	"mask-overlay":  ModelMaskOverlay,
	"image-resize":  ModelResize,
	"image-convert": ModelConvert,
	"image-crop":    ModelCrop,
}

func TestBuiltinCheckAndDiscover(t *testing.T) {
	ep := New()
	var _ endpoints.Endpoint = ep
	var _ endpoints.Discoverer = ep
	if ep.Kind() != skills.EndpointBuiltin {
		t.Errorf("Kind() = %s", ep.Kind())
	}
	ctx := t.Context()
	for task, model := range builtinPairs {
		if err := ep.Check(ctx, task, model); err != nil {
			t.Errorf("Check(%s, %s) = %v", task, model, err)
		}
		if err := ep.Check(ctx, task, strings.ToUpper(model)); err != nil {
			t.Errorf("model ids are case-insensitive like the Hub's: %v", err)
		}
		offers, err := ep.Discover(ctx, task)
		if err != nil || len(offers) != 1 || offers[0].ID != model || offers[0].Description == "" {
			t.Errorf("Discover(%s) = %v, %v", task, offers, err)
		}
	}
	for _, c := range [][2]string{
		{"canny-control", ModelResize},
		{"image-to-text", ModelCanny},
		{"canny-control", "lllyasviel/ControlNet"},
		{"object-detection", "facebook/detr-resnet-50"},
	} {
		err := ep.Check(ctx, c[0], c[1])
		if !errors.Is(err, endpoints.ErrUnsupported) {
			t.Errorf("Check(%s, %s) = %v; want ErrUnsupported", c[0], c[1], err)
		}
		if _, err := ep.Infer(ctx, endpoints.Request{Task: c[0], Model: c[1]}); !errors.Is(err, endpoints.ErrUnsupported) {
			t.Errorf("Infer(%s, %s) = %v; want ErrUnsupported", c[0], c[1], err)
		}
	}
	if offers, _ := ep.Discover(ctx, "image-to-text"); len(offers) != 0 {
		t.Errorf("Discover offered %v for a task it cannot run", offers)
	}
}

func infer(t *testing.T, model string, args map[string]string) endpoints.Result {
	t.Helper()
	res, err := New().Infer(t.Context(), endpointstest.WithFiles(t, endpoints.Request{Model: model, Args: args}))
	if err != nil {
		t.Fatalf("%s: %v", model, err)
	}
	if len(res.Blobs) != 1 {
		t.Fatalf("%s: %d blobs, want 1", model, len(res.Blobs))
	}
	return res
}

func decodeBlob(t *testing.T, b endpoints.Blob) (image.Image, string) {
	t.Helper()
	img, format, err := imaging.Decode(b.Data)
	if err != nil {
		t.Fatal(err)
	}
	if "image/"+format != b.MIME { // every format's MIME type is image/<format>
		t.Errorf("blob MIME %s holds a %s image", b.MIME, format)
	}
	return img, format
}

func TestBuiltinCanny(t *testing.T) {
	dir := t.TempDir()
	r := image.Rect(30, 20, 90, 70)
	path := testkit.WriteImage(t, dir, "in.jpg", testkit.RectImage(120, 90, r, color.RGBA{250, 240, 10, 255}, color.RGBA{20, 20, 120, 255}), "jpeg")
	res := infer(t, ModelCanny, map[string]string{"image": path})
	img, format := decodeBlob(t, res.Blobs[0])
	if format != "png" || img.Bounds() != image.Rect(0, 0, 120, 90) {
		t.Fatalf("got %s %v, want a 120×90 PNG", format, img.Bounds())
	}
	edges := 0
	for y := range 90 {
		for x := range 120 {
			v := color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y
			if v == 255 {
				edges++
				if testkit.RectDist(x, y, r) > 2 {
					t.Fatalf("edge at (%d,%d) away from the rectangle", x, y)
				}
			}
		}
	}
	if edges < 150 {
		t.Errorf("%d edge pixels; want the rectangle's outline", edges)
	}
	if !strings.Contains(res.Text, "120×90") || !strings.Contains(res.Text, "100/200") {
		t.Errorf("text %q does not describe the map", res.Text)
	}
	// Thresholds from text: a high low threshold removes everything.
	res = infer(t, ModelCanny, map[string]string{"image": path, "text": "low 5000 high 6000"})
	img, _ = decodeBlob(t, res.Blobs[0])
	for y := range 90 {
		for x := range 120 {
			if c := color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y; c != 0 {
				t.Fatalf("edge at (%d,%d) above any gradient", x, y)
			}
		}
	}
}

func TestCannyThresholdText(t *testing.T) {
	for text, want := range map[string][2]float64{
		"":                          {100, 200},
		"a cat with 2 dogs":         {100, 200},
		"low 50 high 150":           {50, 150},
		"low_threshold=30":          {30, 200},
		"thresholds 80,160":         {80, 160},
		"threshold: 160/80":         {80, 160},
		"high threshold 300":        {100, 300},
		"edges, high 90 and low 10": {10, 90},
	} {
		lo, hi, err := cannyThresholds(text)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("cannyThresholds(%q) = %g, %g, %v; want %v", text, lo, hi, err, want)
		}
	}
	if _, _, err := cannyThresholds("low 0 high 0"); !errors.Is(err, endpoints.ErrBadInput) {
		t.Errorf("zero thresholds: %v", err)
	}
}

func TestBuiltinResize(t *testing.T) {
	dir := t.TempDir()
	src := testkit.RectImage(400, 300, image.Rect(0, 0, 200, 300), color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255})
	for _, c := range []struct {
		format, spec string
		w, h         int
		out          string
	}{
		{"png", "200x100", 200, 100, "png"},
		{"jpeg", "50%", 200, 150, "jpeg"},
		{"gif", "width 100", 100, 75, "gif"},
		{"bmp", "height 600", 800, 600, "bmp"},
		{"tiff", "resize to 40 x 30", 40, 30, "tiff"},
	} {
		path := testkit.WriteImage(t, dir, "in."+c.format, src, c.format)
		res := infer(t, ModelResize, map[string]string{"image": path, "text": c.spec})
		img, format := decodeBlob(t, res.Blobs[0])
		if format != c.out || img.Bounds().Dx() != c.w || img.Bounds().Dy() != c.h {
			t.Errorf("%s %q: got %s %v, want %s %d×%d", c.format, c.spec, format, img.Bounds(), c.out, c.w, c.h)
			continue
		}
		// The picture is scaled, not cropped: red on the left, blue on
		// the right.
		l, _, _, _ := img.At(c.w/4, c.h/2).RGBA()
		_, _, b, _ := img.At(3*c.w/4, c.h/2).RGBA()
		if l>>8 < 200 || b>>8 < 200 {
			t.Errorf("%s: left red %d, right blue %d; the content moved", c.format, l>>8, b>>8)
		}
	}
	// WebP cannot be written: the resized image comes back as PNG.
	res := infer(t, ModelResize, map[string]string{"image": filepath.Join("testdata", "rect-lossless.webp"), "text": "24x16"})
	img, format := decodeBlob(t, res.Blobs[0])
	if format != "png" || img.Bounds() != image.Rect(0, 0, 24, 16) || !strings.Contains(res.Text, "PNG") {
		t.Errorf("webp: got %s %v, text %q", format, img.Bounds(), res.Text)
	}
}

func TestBuiltinConvertRoundTrips(t *testing.T) {
	dir := t.TempDir()
	src := testkit.GradientImage(64, 48)
	path := testkit.WriteImage(t, dir, "in.png", src, "png")
	for _, c := range []struct{ text, format, mime string }{
		{"png", "png", "image/png"},
		{"JPEG", "jpeg", "image/jpeg"},
		{"convert this png to jpg", "jpeg", "image/jpeg"},
		{"gif", "gif", "image/gif"},
		{"save it as a .bmp", "bmp", "image/bmp"},
		{"tif", "tiff", "image/tiff"},
		{"image/tiff", "tiff", "image/tiff"},
	} {
		res := infer(t, ModelConvert, map[string]string{"image": path, "text": c.text})
		if res.Blobs[0].MIME != c.mime {
			t.Errorf("%q: MIME %s, want %s", c.text, res.Blobs[0].MIME, c.mime)
		}
		img, format := decodeBlob(t, res.Blobs[0])
		if format != c.format || img.Bounds() != src.Bounds() {
			t.Errorf("%q: got %s %v", c.text, format, img.Bounds())
		}
		// Lossless formats keep every pixel.
		if c.format == "png" || c.format == "bmp" || c.format == "tiff" {
			for y := range 48 {
				for x := range 64 {
					if testkit.Changed(src, img, x, y) {
						t.Fatalf("%q: pixel (%d,%d) testkit.Changed in a lossless format", c.text, x, y)
					}
				}
			}
		}
	}
	// And from the converted file back to PNG.
	jpg := infer(t, ModelConvert, map[string]string{"image": path, "text": "jpeg"})
	jpath := testkit.WriteFile(t, dir, "out.jpg", jpg.Blobs[0].Data)
	back := infer(t, ModelConvert, map[string]string{"image": jpath, "text": "png"})
	if img, format := decodeBlob(t, back.Blobs[0]); format != "png" || img.Bounds() != src.Bounds() {
		t.Errorf("jpeg → png: %s %v", format, img.Bounds())
	}
}

func TestBuiltinCrop(t *testing.T) {
	dir := t.TempDir()
	src := testkit.RectImage(100, 80, image.Rect(40, 30, 60, 50), color.RGBA{0, 255, 0, 255}, color.RGBA{0, 0, 0, 255})
	path := testkit.WriteImage(t, dir, "in.bmp", src, "bmp")
	res := infer(t, ModelCrop, map[string]string{"image": path, "box": "40,30,60,50"})
	img, format := decodeBlob(t, res.Blobs[0])
	if format != "png" || img.Bounds() != image.Rect(0, 0, 20, 20) {
		t.Fatalf("got %s %v, want a 20×20 PNG", format, img.Bounds())
	}
	for y := range 20 {
		for x := range 20 {
			if _, g, _, _ := img.At(x, y).RGBA(); g>>8 != 255 {
				t.Fatalf("pixel (%d,%d) of the crop is not the green square", x, y)
			}
		}
	}
	// Partly outside: clipped to the image.
	res = infer(t, ModelCrop, map[string]string{"image": path, "box": "[90, 70, 150, 150]"})
	if img, _ := decodeBlob(t, res.Blobs[0]); img.Bounds() != image.Rect(0, 0, 10, 10) {
		t.Errorf("clipped crop is %v, want 10×10", img.Bounds())
	}
}

func TestBuiltinMaskOverlay(t *testing.T) {
	dir := t.TempDir()
	src := testkit.GradientImage(160, 120)
	path := testkit.WriteImage(t, dir, "in.png", src, "png")
	maskImg := testkit.CircleMask(80, 60, 40, 30, 20) // half size: scaled up
	mpath := testkit.WriteImage(t, dir, "mask.png", maskImg, "png")
	res := infer(t, ModelMaskOverlay, map[string]string{"image": path, "mask": mpath})
	out, _ := decodeBlob(t, res.Blobs[0])
	full := testkit.CircleMask(160, 120, 80, 60, 40)
	mismatch := 0
	for y := range 120 {
		for x := range 160 {
			if (full.GrayAt(x, y).Y != 0) != testkit.Changed(src, out, x, y) {
				mismatch++
			}
		}
	}
	// Scaling a half-size disc moves its rim by a pixel here and there.
	if mismatch > 2*2*3*40 {
		t.Errorf("%d pixels disagree with the scaled mask", mismatch)
	}
	if testkit.Changed(src, out, 5, 5) || !testkit.Changed(src, out, 80, 60) {
		t.Error("overlay tinted outside the mask or not inside it")
	}
	labelled := infer(t, ModelMaskOverlay, map[string]string{"image": path, "mask": mpath, "text": "pond"})
	if !strings.Contains(labelled.Text, `"pond"`) {
		t.Errorf("text %q does not name the label", labelled.Text)
	}
	lout, _ := decodeBlob(t, labelled.Blobs[0])
	diff := 0
	for y := range 120 {
		for x := range 160 {
			if testkit.Changed(out, lout, x, y) {
				diff++
			}
		}
	}
	if diff < 50 {
		t.Errorf("the label testkit.Changed only %d pixels", diff)
	}
}

func TestBuiltinBadInputNeverPanics(t *testing.T) {
	dir := t.TempDir()
	good := testkit.WriteImage(t, dir, "good.png", testkit.GradientImage(64, 48), "png")
	pngData, _ := os.ReadFile(good)
	truncated := testkit.WriteFile(t, dir, "truncated.png", pngData[:len(pngData)/2])
	empty := testkit.WriteFile(t, dir, "empty.png", nil)
	text := testkit.WriteFile(t, dir, "notes.png", []byte("just some text"))
	huge := testkit.WriteFile(t, dir, "huge.png", testkit.PNGWithSize(t, 50000, 50000))
	zero := testkit.WriteFile(t, dir, "zero.png", testkit.PNGWithSize(t, 0, 0))
	black := testkit.WriteImage(t, dir, "black.png", image.NewGray(image.Rect(0, 0, 64, 48)), "png")
	missing := filepath.Join(dir, "missing.png")
	badImages := []string{"", missing, dir, truncated, empty, text, huge, zero}

	type call struct {
		model string
		args  map[string]string
	}
	var calls []call
	for _, img := range badImages {
		calls = append(calls,
			call{ModelCanny, map[string]string{"image": img}},
			call{ModelDrawBoxes, map[string]string{"image": img, "text": "cat [1,2,3,4]"}},
			call{ModelMaskOverlay, map[string]string{"image": img, "mask": good}},
			call{ModelMaskOverlay, map[string]string{"image": good, "mask": img}},
			call{ModelResize, map[string]string{"image": img, "text": "50%"}},
			call{ModelConvert, map[string]string{"image": img, "text": "png"}},
			call{ModelCrop, map[string]string{"image": img, "box": "1,2,3,4"}},
		)
	}
	calls = append(calls,
		call{ModelCanny, map[string]string{"image": good, "text": "low -5 high -1"}},
		call{ModelDrawBoxes, map[string]string{"image": good}},
		call{ModelDrawBoxes, map[string]string{"image": good, "text": "nothing was detected"}},
		call{ModelDrawBoxes, map[string]string{"image": good, "text": `[{"label":"cat","box":{"xmin":500,"ymin":500,"xmax":600,"ymax":600}}]`}},
		call{ModelDrawBoxes, map[string]string{"image": good, "text": `[{"label":"cat","score":NaN,"box":{"xmin":NaN,"ymin":1,"xmax":2,"ymax":3}}]`}},
		call{ModelMaskOverlay, map[string]string{"image": good}},
		call{ModelMaskOverlay, map[string]string{"image": good, "mask": black}},
		call{ModelResize, map[string]string{"image": good}},
		call{ModelResize, map[string]string{"image": good, "text": "make it nicer"}},
		call{ModelResize, map[string]string{"image": good, "text": "99999x99999"}},
		call{ModelResize, map[string]string{"image": good, "text": "0.0001%"}},
		call{ModelConvert, map[string]string{"image": good}},
		call{ModelConvert, map[string]string{"image": good, "text": "webp"}},
		call{ModelConvert, map[string]string{"image": good, "text": "a nice format"}},
		call{ModelCrop, map[string]string{"image": good}},
		call{ModelCrop, map[string]string{"image": good, "box": "1,2,3"}},
		call{ModelCrop, map[string]string{"image": good, "box": "100,100,200,200"}},
		call{ModelCrop, map[string]string{"image": good, "box": "NaN,1,2,3"}},
	)
	ep := New()
	for _, c := range calls {
		res, err := ep.Infer(t.Context(), endpointstest.WithFiles(t, endpoints.Request{Model: c.model, Args: c.args}))
		if !errors.Is(err, endpoints.ErrBadInput) {
			t.Errorf("%s %v: got %v, %v; want ErrBadInput", c.model, c.args, res.Text, err)
			continue
		}
		if endpoints.Retryable(err) {
			t.Errorf("%s: bad input must not be retried on another model", c.model)
		}
		if !strings.Contains(err.Error(), c.model) {
			t.Errorf("error %q does not say which built-in failed", err)
		}
	}
}

func TestBuiltinMissingArgumentNamesIt(t *testing.T) {
	_, err := New().Infer(t.Context(), endpointstest.WithFiles(t, endpoints.Request{Task: "image-crop", Model: ModelCrop, Args: map[string]string{"image": "x.png"}}))
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), `"box"`) || !strings.Contains(err.Error(), "x1,y1,x2,y2") {
		t.Errorf("error %v should name the missing box argument and its form", err)
	}
}

func TestBuiltinHonoursCancellation(t *testing.T) {
	dir := t.TempDir()
	path := testkit.WriteImage(t, dir, "in.png", testkit.GradientImage(32, 32), "png")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for task, model := range builtinPairs {
		_, err := New().Infer(ctx, endpointstest.WithFiles(t, endpoints.Request{Task: task, Model: model, Args: map[string]string{"image": path, "mask": path, "text": "50%", "box": "1,1,9,9"}}))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v; want context.Canceled", model, err)
		}
	}
}

func TestBuiltinDrawBoxesEveryInputFormat(t *testing.T) {
	src := testkit.GradientImage(320, 240)
	box := image.Rect(100, 100, 200, 180)
	inputs := map[string]string{
		"hugging face": `[{"score":0.98,"label":"cat","box":{"xmin":100,"ymin":100,"xmax":200,"ymax":180}}]`,
		"jarvis":       `{'generated image with predicted box': '/images/1.jpg', 'predicted': [{'score': 0.98, 'label': 'cat', 'box': {'xmin': 100, 'ymin': 100, 'xmax': 200, 'ymax': 180}}]}`,
		"text":         "1 object: cat (0.98) at [100,100,200,180]",
		"fractions":    "cat (0.98) at [0.3125,0.41666666666666667,0.625,0.75]",
	}
	dir := t.TempDir()
	path := testkit.WriteImage(t, dir, "in.png", src, "png")
	ep := New()
	for name, text := range inputs {
		t.Run(name, func(t *testing.T) {
			res, err := ep.Infer(t.Context(), endpointstest.WithFiles(t, endpoints.Request{Task: "draw-boxes", Model: ModelDrawBoxes, Args: map[string]string{"image": path, "text": text}}))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Blobs) != 1 || res.Blobs[0].MIME != "image/png" {
				t.Fatalf("blobs %v, want one PNG", res.Blobs)
			}
			out, _, err := imaging.Decode(res.Blobs[0].Data)
			if err != nil {
				t.Fatal(err)
			}
			if out.Bounds() != src.Bounds() {
				t.Fatalf("output is %v, want %v", out.Bounds(), src.Bounds())
			}
			testkit.CheckBoxDrawn(t, src, out, box, 2, 1) // outlines are 2 px wide on an image this small
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

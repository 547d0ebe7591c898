package imaging

import (
	"errors"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

func TestDrawDetectionsLabelIsReadable(t *testing.T) {
	src := testkit.RectImage(320, 240, image.Rectangle{}, color.White, color.RGBA{128, 128, 128, 255})
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
	src := testkit.GradientImage(160, 120)
	cases := []struct {
		name  string
		det   Detection
		want  image.Rectangle
		lines int
	}{
		{"top-left overflow", Detection{"a", 0.5, [4]float64{-50, -50, 60, 60}}, image.Rect(0, 0, 60, 60), 1},
		// 160 px hold 22 characters: the 44-character label wraps onto two.
		{"right edge", Detection{"a very long label that is wider than the box", 0.5, [4]float64{120, 50, 400, 100}}, image.Rect(120, 50, 160, 100), 2},
		{"reversed corners", Detection{"a", math.NaN(), [4]float64{90, 80, 30, 20}}, image.Rect(30, 20, 90, 80), 1},
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
			testkit.CheckBoxDrawn(t, src, out, c.want, strokeWidth(src.Bounds()), c.lines)
		})
	}
	out, drawn := DrawDetections(src, []Detection{{"gone", 0.9, [4]float64{500, 500, 600, 600}}, {"gone", 0.9, [4]float64{-9, -9, -1, -1}}})
	if len(drawn) != 0 {
		t.Errorf("boxes outside the image were drawn: %v", drawn)
	}
	for y := range 120 {
		for x := range 160 {
			if testkit.Changed(src, out, x, y) {
				t.Fatalf("pixel (%d,%d) testkit.Changed with no box inside the image", x, y)
			}
		}
	}
}

func TestDrawDetectionsTinyAndHugeValues(t *testing.T) {
	for _, size := range []image.Point{{1, 1}, {3, 2}, {20, 10}} {
		src := testkit.GradientImage(size.X, size.Y)
		out, drawn := DrawDetections(src, []Detection{
			{"x", 1, [4]float64{0, 0, 1e300, 1e300}},
			{"y", math.Inf(1), [4]float64{-1e300, 0, 0.5, 0.5}},
		})
		if len(drawn) != 2 || out.Bounds() != src.Bounds() {
			t.Errorf("%v: drew %d, bounds %v", size, len(drawn), out.Bounds())
		}
	}
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
	img := testkit.GradientImage(32, 24)
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
		out, _ := DrawDetections(img, Denormalise(dets, img.Bounds()))
		if out.Bounds() != img.Bounds() {
			t.Fatalf("output %v", out.Bounds())
		}
	})
}

package imaging

import (
	"errors"
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

package selection_test

import (
	"context"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/selection"
	"github.com/chorusai/chorus/skills"
)

// modeCatalog is the embedded catalog with a skill of a curated default
// (depth-estimation) and one without (image-to-text), each of two Hugging
// Face models, in place of its own.
func modeCatalog(t *testing.T) *skills.Catalog {
	t.Helper()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range []string{`name: depth-estimation
description: Estimate the depth of every pixel of an image.
default: test/depth-curated
args:
  - {name: image, type: image}
outputs: [image]
models:
  - {id: test/depth-popular, downloads: 9000, license: mit, params: 300000000, endpoints: [huggingface]}
  - {id: test/depth-curated, downloads: 800, license: apache-2.0, params: 100000000, endpoints: [huggingface]}
`, `name: image-to-text
description: Describe an image in words.
args:
  - {name: image, type: image}
outputs: [text]
models:
  - {id: test/captioner-big, downloads: 900, license: mit, params: 900000000, endpoints: [huggingface]}
  - {id: test/captioner-small, downloads: 500, license: apache-2.0, params: 100000000, endpoints: [huggingface]}
`} {
		s, err := skills.Parse([]byte(y))
		if err != nil {
			t.Fatal(err)
		}
		cat.Put(s)
	}
	return cat
}

// TestSelectionModes: with selection: auto the skill's curated default
// runs without a selection call when the request states no preference,
// and the controller chooses when the request weighs models (a preference
// word, a piece of a candidate's name) or the skill has no default;
// selection: controller always asks, selection: ranked never does. A
// candidate the request names runs in every mode.
func TestSelectionModes(t *testing.T) {
	t.Parallel()
	sel := selection.Selector{Catalog: modeCatalog(t), Router: endpoints.NewRouter(endpoints.ModeHybrid, endpointstest.NewProbe(skills.EndpointHuggingFace)), NumCandidates: 5}
	for _, c := range []struct {
		name    string
		mode    selection.Mode
		request string
		task    string
		asks    bool
		model   string
		decided string
	}{
		{"no preference, curated default", selection.ModeAuto, "how far away is everything in a.png", "depth-estimation", false, "test/depth-curated", "ranked"},
		{"a preference word", selection.ModeAuto, "use the most accurate model to estimate the depth of a.png", "depth-estimation", true, "", ""},
		{"a piece of a candidate's name", selection.ModeAuto, "use the popular one on a.png", "depth-estimation", true, "", ""},
		{"a candidate's name", selection.ModeAuto, "run depth-popular on a.png", "depth-estimation", false, "test/depth-popular", "named"},
		{"a candidate's name, controller mode", selection.ModeController, "run test/depth-popular on a.png", "depth-estimation", false, "test/depth-popular", "named"},
		{"no curated default", selection.ModeAuto, "caption a.png", "image-to-text", true, "", ""},
		{"controller mode", selection.ModeController, "how far away is everything in a.png", "depth-estimation", true, "", ""},
		{"ranked mode", selection.ModeRanked, "caption a.png", "image-to-text", false, "test/captioner-big", "ranked"},
		{"a candidate's name, ranked mode", selection.ModeRanked, "caption with TEST/Captioner-Small: a.png", "image-to-text", false, "test/captioner-small", "named"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := sel
			s.Mode = c.mode
			ch, pending := s.Select(context.Background(), flow.Task{ID: 1, Task: c.task, Args: map[string]string{"image": "/tmp/a.png"}}, flow.Constraints{}, c.request)
			if pending != c.asks {
				t.Fatalf("asks the controller = %v, want %v (%s: %s)", pending, c.asks, ch.Decided, ch.Reason)
			}
			if c.asks {
				if len(ch.Ranked) < 2 {
					t.Errorf("the controller is asked to choose among %d candidates", len(ch.Ranked))
				}
				return
			}
			if got := ch.Ranked[0].Model.ID; got != c.model || ch.Decided != c.decided || ch.Reason == "" {
				t.Errorf("model %s decided %q (%s), want %s decided %q with a reason", got, ch.Decided, ch.Reason, c.model, c.decided)
			}
		})
	}
}

package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/turnview"
)

// fallbackEnv is a Hugging Face engine (the fake, with the Hub's provider
// mapping) where "draw a lighthouse" falls back twice: FLUX.1-schnell is
// served by neither fal-ai nor replicate (404 each), SDXL's server fails
// (500), FLUX.1-dev runs.
func fallbackEnv(t *testing.T) *testEnv {
	env := newTestEnv(t)
	hf := fakehf.New(t)
	hf.RequireToken("hf_test")
	const schnell = "black-forest-labs/FLUX.1-schnell"
	hf.Provide("fal-ai", schnell, "fal-ai/flux/schnell", "text-to-image").Status(404, "Application 'flux/schnell' not found")
	hf.Provide("replicate", schnell, "black-forest-labs/flux-schnell", "text-to-image").Status(404, "The requested resource could not be found.")
	hf.Model("stabilityai/stable-diffusion-xl-base-1.0", "text-to-image").Status(500, "CUDA error: an illegal memory access was encountered")
	hf.Model("black-forest-labs/FLUX.1-dev", "text-to-image")
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
		huggingface.New(huggingface.Options{BaseURL: hf.URL, Token: "hf_test", HTTPClient: hf.Client(), Backoff: time.Millisecond,
			Hub: &skills.Hub{BaseURL: hf.Root, Token: "hf_test", HTTPClient: hf.Client()}, Known: known(cat)}))
	env.eng = pipeline.New(env.eng.Controller(), cat, router, pipeline.Options{OutputDir: env.out, ControllerTasks: true, MaxParallel: 1})
	env.cfg.InferenceMode, env.cfg.HuggingFace.Token = "hybrid", "hf_test"
	env.script.plan = `{"tasks": [{"task": "text-to-image", "id": 1, "dep": [], "args": {"text": "a lighthouse at dusk"}}]}`
	env.script.answer = "Here is your lighthouse."
	return env
}

// Golden frames of a turn with a two-hop fallback: Models shows the model
// that ran and after what; Execution gives each failed hop one line, so
// the panes keep their room at 160×48 and the tab opens on whole lines at
// 80×24.
func TestGoldenTwoHopFallback(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sizeName(sz.w, sz.h), func(t *testing.T) {
			env := fallbackEnv(t)
			s := startSession(t, env.model(t), sz.w, sz.h)
			s.ready()
			s.submit("draw a lighthouse at dusk")
			s.wait("the turn", turnsDone(1))
			m := s.finish()
			tr := m.turns[0]
			if tr.Err != nil || len(tr.Tasks) != 1 {
				t.Fatalf("turn: err=%v tasks=%d", tr.Err, len(tr.Tasks))
			}
			ts := tr.Tasks[0]
			if ts.Status != turnview.TaskDone || ts.Model != "black-forest-labs/FLUX.1-dev" || len(ts.Attempts) != 3 {
				t.Fatalf("task = %+v", ts)
			}
			f := frame(m)
			for _, want := range []string{
				"   FLUX.1-schnell: not served b", "→ stable-diffusion-xl-base-1.0\n", "→ FLUX.1-dev\n",
				"text-to-image → black-forest-labs/FLUX.1-dev", "after FLUX.1-schnell failed: not served by fal-ai (404)",
			} {
				if sz.w < 120 && strings.Contains(want, "after") || strings.Contains(want, "text-to-image →") {
					continue // the narrow panel shows the Execution tab
				}
				if !strings.Contains(f, want) {
					t.Errorf("screen lacks %q:\n%s", want, f)
				}
			}
			if strings.Contains(f, "no provider could run it") || strings.Contains(f, "HTTP 404") || strings.Contains(f, "Application") {
				t.Errorf("the failure is repeated on screen:\n%s", f)
			}
			golden.RequireEqual(t, f)
		})
	}
}

// known is what the catalog says of its models' providers, as the app
// wires it: what selection shows before the Hub is asked.
func known(cat *skills.Catalog) map[string][]skills.Provider {
	out := map[string][]skills.Provider{}
	for _, s := range cat.All() {
		for _, m := range s.Models {
			out[m.ID] = append(out[m.ID], m.Providers...)
		}
	}
	return out
}

package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/turnview"
)

// A turn whose task runs on the Hugging Face Inference API (the fake, with
// the real protocol): the model is loading on the first call, the execution
// pane logs the wait, the retry succeeds, and the caption reaches the
// answer's workflow.
func TestHuggingFaceTurnShowsLoading(t *testing.T) {
	env := newTestEnv(t)
	hf := fakehf.New(t)
	hf.RequireToken("hf_test")
	for _, id := range []string{"Salesforce/blip-image-captioning-large", "Salesforce/blip-image-captioning-base"} {
		hf.Model(id, "image-to-text").LoadingFor(1, 0.05)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
		huggingface.New(huggingface.Options{BaseURL: hf.URL, Token: "hf_test", HTTPClient: hf.Client()}))
	env.eng = pipeline.New(env.eng.Controller(), cat, router, pipeline.Options{OutputDir: env.out, ControllerTasks: true})
	env.cfg.InferenceMode, env.cfg.HuggingFace.Token = "hybrid", "hf_test"
	env.script.plan = fmt.Sprintf(`{"tasks": [{"task": "image-to-text", "id": 1, "dep": [], "args": {"image": %q}}]}`, env.image)
	env.script.answer = "It is a colourful gradient."

	s := startSession(t, env.model(t), 160, 48)
	s.ready()
	s.submit("what is in @" + env.image + " ?")
	s.wait("the turn", turnsDone(1))
	m := s.finish()

	tr := m.turns[0]
	if tr.Err != nil || len(tr.Tasks) != 1 {
		t.Fatalf("turn: err=%v tasks=%d", tr.Err, len(tr.Tasks))
	}
	ts := tr.Tasks[0]
	if ts.Status != turnview.TaskDone || ts.Endpoint != "huggingface" || !strings.HasPrefix(ts.Model, "Salesforce/blip-image-captioning") {
		t.Fatalf("task = %+v", ts)
	}
	var logged bool
	for _, l := range ts.Log {
		if strings.Contains(l.Text, "is loading") {
			logged = true
		}
	}
	if !logged {
		t.Errorf("the loading wait should be in the execution log: %+v", ts.Log)
	}
	if ts.Choice == nil || len(ts.Choice.Candidates) < 2 {
		t.Errorf("the models pane should list the candidates: %+v", ts.Choice)
	}
	f := frame(m)
	for _, want := range []string{"HF token ✓", "hybrid", "is loading", "image-to-text → Salesforce/blip-image-captioning"} {
		if !strings.Contains(f, want) {
			t.Errorf("screen lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(m.View().Content, "hf_test") {
		t.Fatal("the token leaked onto the screen")
	}
}

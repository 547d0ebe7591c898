package ui

import (
	"fmt"
	"net"
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

// A turn that finds the Hugging Face router down: the status bar says so
// where it said "HF token ✓", and the task's pane names the skip.
func TestUnreachableRouterShowsInTheStatusBar(t *testing.T) {
	env := newTestEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
		huggingface.New(huggingface.Options{BaseURL: "http://" + dead, Token: "hf_test", MaxRetries: -1, MaxWait: -1}))
	env.eng = pipeline.New(env.eng.Controller(), cat, router, pipeline.Options{OutputDir: env.out, ControllerTasks: true})
	env.cfg.InferenceMode, env.cfg.HuggingFace.Token = "hybrid", "hf_test"
	env.script.plan = fmt.Sprintf(`{"tasks": [{"task": "image-to-text", "id": 1, "dep": [], "args": {"image": %q}}]}`, env.image)

	s := startSession(t, env.model(t), 160, 48)
	s.ready()
	if f := s.snapshot(); !strings.Contains(f, "HF token ✓") {
		t.Fatalf("before the turn the status should show the token:\n%s", f)
	}
	s.submit("what is in @" + env.image + " ?")
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	f := frame(m)
	if !strings.Contains(f, "HF router ✗ unreachable") || strings.Contains(f, "HF token ✓") {
		t.Errorf("status bar after the router refused:\n%s", f)
	}
	var logged bool
	for _, l := range m.turns[0].Tasks[0].Log {
		logged = logged || strings.Contains(l.Text, "Hugging Face's router is unreachable at "+dead)
	}
	if !logged {
		t.Errorf("the task's log should say the router is down: %+v", m.turns[0].Tasks[0].Log)
	}
}

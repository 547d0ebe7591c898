package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeweb"
)

// TestRunRetrievalFeedsQuestionAnswering: `chorus run` plans a Wikipedia
// lookup and a question answered from its result (<resource>-1 as the
// context); the lookup searches the fake Wikipedia and reads the page
// summary, question-answering on Hugging Face is sent the retrieved text,
// and the answer stage sees the retrieved text as data.
func TestRunRetrievalFeedsQuestionAnswering(t *testing.T) {
	t.Parallel()
	wiki := fakeweb.NewWikipedia(t, fakeweb.Article{Title: "Eiffel Tower", Description: "tower in Paris, France",
		Extract: "Gustave Eiffel's company designed and built the tower between 1887 and 1889."})
	var answerPrompt string
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"retrieval","id":1,"dep":[],"args":{"text":"Eiffel Tower"}},` +
				`{"task":"question-answering","id":2,"dep":[1],"args":{"text":"Who built the tower?","context":"<resource>-1"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"default"},{"id":2,"pick":1,"reason":"default"}]}`}
		}
		answerPrompt = req.Messages[len(req.Messages)-1].Content
		return fakeollama.Reply{Content: "Gustave Eiffel's company built it."}
	})
	e.env["CHORUS_RETRIEVAL_WIKIPEDIA_URL"] = wiki.URL
	e.serveSkill("question-answering")

	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "who built the Eiffel Tower? look it up")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	ends := map[float64]map[string]any{}
	var models []map[string]any
	for _, ev := range jsonLines(t, stdout) {
		switch ev["type"] {
		case "task_end":
			ends[ev["id"].(float64)] = ev
		case "model":
			models = append(models, ev)
		}
	}
	if ends[1]["status"] != "ok" || ends[2]["status"] != "ok" {
		t.Fatalf("task ends %v", ends)
	}
	var retrievalModel map[string]any
	for _, m := range models {
		if m["task"] == "retrieval" || m["id"] == float64(1) {
			retrievalModel = m
		}
	}
	if retrievalModel["model"] != "wikipedia/rest-api" || retrievalModel["endpoint"] != "retrieval" {
		t.Errorf("retrieval ran on %v, want wikipedia/rest-api on the retrieval endpoint", retrievalModel)
	}
	reqs := wiki.Requests()
	if len(reqs) < 2 || reqs[0].Query.Get("q") != "Eiffel Tower" || reqs[1].Path != "/api/rest_v1/page/summary/Eiffel_Tower" {
		t.Fatalf("Wikipedia requests %+v", reqs)
	}
	// Question answering read the retrieved text as its context.
	var qa []byte
	for _, r := range e.hf.Requests() {
		if r.Task == "question-answering" {
			qa = r.Body
		}
	}
	var payload struct {
		Inputs struct{ Question, Context string } `json:"inputs"`
	}
	if err := json.Unmarshal(qa, &payload); err != nil {
		t.Fatalf("question-answering body %q: %v", qa, err)
	}
	if payload.Inputs.Question != "Who built the tower?" || !strings.Contains(payload.Inputs.Context, "Gustave Eiffel's company designed and built") ||
		!strings.Contains(payload.Inputs.Context, "source: https://en.wikipedia.org/wiki/Eiffel_Tower") {
		t.Errorf("question-answering inputs %+v, want the retrieved text as context", payload.Inputs)
	}
	// The answer stage sees the retrieved text, framed as data.
	i := strings.Index(answerPrompt, "Gustave Eiffel's company designed")
	if i < 0 || !strings.Contains(answerPrompt[:i], "<data>") {
		t.Errorf("the answer prompt does not carry the retrieved text inside <data>:\n%s", answerPrompt)
	}
}

// TestRunRetrievalLocalModeUsesSearxNG: under inference_mode local a
// Wikipedia lookup would leave the network, so the plan's retrieval runs on
// the SearxNG instance on this machine, and Wikipedia is never asked.
func TestRunRetrievalLocalModeUsesSearxNG(t *testing.T) {
	t.Parallel()
	wiki := fakeweb.NewWikipedia(t, fakeweb.Article{Title: "Lisbon", Extract: "Lisbon is the capital of Portugal."})
	searx := fakeweb.NewSearxNG(t, fakeweb.Page{URL: "https://example.org/lisbon", Title: "Lisbon trams", Content: "Tram 28 climbs through Alfama."})
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks":[{"task":"retrieval","id":1,"dep":[],"args":{"text":"Lisbon trams"}}]}`}
		}
		return fakeollama.Reply{Content: "Tram 28 climbs through Alfama."}
	})
	e.env["CHORUS_INFERENCE_MODE"] = "local"
	e.env["CHORUS_RETRIEVAL_WIKIPEDIA_URL"] = wiki.URL
	e.env["CHORUS_RETRIEVAL_SEARXNG_URL"] = searx.URL
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "look up the Lisbon trams")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var model, end map[string]any
	for _, ev := range jsonLines(t, stdout) {
		switch ev["type"] {
		case "model":
			model = ev
		case "task_end":
			end = ev
		}
	}
	if txt, _ := end["result"].(string); model["model"] != "searxng/json-api" || end["status"] != "ok" || !strings.Contains(txt, "Tram 28 climbs through Alfama") {
		t.Fatalf("model %v, task_end %v: want the lookup on the local SearxNG", model, end)
	}
	if n := len(wiki.Requests()); n != 0 {
		t.Errorf("Wikipedia was asked %d times in local mode", n)
	}
	if r := searx.Requests(); len(r) != 1 || r[0].Query.Get("q") != "Lisbon trams" {
		t.Errorf("SearxNG requests %+v", r)
	}
}

// TestModelsListRetrievalSaysWhichRuleExcludesIt: a web lookup left out
// names the rule that left it out — the mode or the constraint — and the
// fix, a SearxNG on this machine or network.
func TestModelsListRetrievalSaysWhichRuleExcludesIt(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	e.env["CHORUS_RETRIEVAL_WIKIPEDIA_URL"] = "https://en.wikipedia.org"
	out, stderr, code := e.run("--mode", "local", "models", "list", "retrieval")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "excluded wikipedia/rest-api — it is a web lookup, which inference_mode local rules out — set retrieval.searxng_url") ||
		strings.Contains(out, "local-only") {
		t.Errorf("in local mode:\n%s", out)
	}
	out, _, _ = e.run("models", "list", "--constrain", "local-only", "retrieval")
	if !strings.Contains(out, "excluded wikipedia/rest-api — it is a web lookup, which the local-only constraint rules out") ||
		strings.Contains(out, "inference_mode local") {
		t.Errorf("under local-only:\n%s", out)
	}
}

// TestRunPlanOnlyPrintsThePlan: `chorus run --plan-only` puts the plan on
// stdout, as a run puts its answer there — the planner's JSON, so that
// `> plan.json` and --quiet get it — and runs nothing.
func TestRunPlanOnlyPrintsThePlan(t *testing.T) {
	t.Parallel()
	wiki := fakeweb.NewWikipedia(t)
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"tasks":[{"task":"retrieval","id":1,"dep":[],"args":{"text":"Eiffel Tower"}},` +
			`{"task":"question-answering","id":2,"dep":[1],"args":{"text":"Who built it?","context":"<resource>-1"}}]}`}
	})
	e.env["CHORUS_RETRIEVAL_WIKIPEDIA_URL"] = wiki.URL
	stdout, stderr, code := e.run("run", "--plan-only", "--quiet", "who built the Eiffel Tower? look it up")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan struct {
		Tasks []struct {
			Task string
			ID   int
			Args map[string]string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil || len(plan.Tasks) != 2 || plan.Tasks[0].Task != "retrieval" || plan.Tasks[0].Args["text"] != "Eiffel Tower" {
		t.Fatalf("stdout %q (%v), want the plan as JSON", stdout, err)
	}
	if len(wiki.Requests()) != 0 {
		t.Error("--plan-only ran the lookup")
	}
	if !strings.Contains(stdout, `"context": "<resource>-1"`) {
		t.Errorf("the plan is HTML-escaped: %q", stdout)
	}
}

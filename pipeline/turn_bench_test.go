package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// The turn benchmark runs whole turns — plan, select, execute, respond —
// against a fake Ollama that spends time as a local one does (issue 9's
// scenario: 200 ms to the first token, 20 ms per token, 50 ms per 1,000
// prompt tokens of prefill, one call at a time, the KV cache of the last
// prompt kept) and a fake Hugging Face whose every expert call takes
// 400 ms, with the embedded catalog in hybrid mode. It reports, per turn:
// wall time, time to the first answer token, controller calls, prompt
// tokens and the tokens really prefilled.
//
//	go tool task bench   (or: go test ./pipeline -run '^$' -bench Turn -count 6)

// benchLatency is issue 9's controller: a GPU-served local model.
var benchLatency = fakeollama.Latency{
	FirstToken:  200 * time.Millisecond,
	PerToken:    20 * time.Millisecond,
	PerKPrefill: 50 * time.Millisecond,
	Serial:      true,
	PrefixCache: true,
}

// cpuLatency is an 8B model on a laptop CPU — 100 prompt tokens/s of
// prefill, 20 tokens/s of decode — with every delay divided by ten so the
// benchmark stays short; ratios between runs are what it measures. Here
// prefill, not decode, is what the user waits for.
var cpuLatency = fakeollama.Latency{
	FirstToken:  20 * time.Millisecond,
	PerToken:    5 * time.Millisecond,
	PerKPrefill: time.Second,
	Serial:      true,
	PrefixCache: true,
}

// benchExpertDelay is the time of one expert call.
const benchExpertDelay = 400 * time.Millisecond

// benchScenario is one request with the plan the controller answers.
type benchScenario struct {
	name    string
	request string
	tasks   func(image string) []map[string]any
	// revision, when set, is the controller's revision of the plan
	// (revise.go): the experts of the skills only the plan uses fail
	// (HTTP 500).
	revision func(image string) []map[string]any
}

// revisedScenario is the chain with the fifth step: every captioner fails,
// the caption's reader is skipped, and the revision asks a visual question
// instead and reads its answer aloud. It costs the revision call and the
// new tasks; the early answer still starts while the new speech runs.
var revisedScenario = benchScenario{name: "revised", request: "Read this picture's caption aloud.", tasks: func(img string) []map[string]any {
	return []map[string]any{
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}),
	}
}, revision: func(img string) []map[string]any {
	return []map[string]any{
		task(3, "visual-question-answering", nil, map[string]string{"image": img, "text": "What does this picture show?"}),
		task(4, "text-to-speech", []int{3}, map[string]string{"text": "<resource>-3"}),
	}
}}

var benchScenarios = []benchScenario{
	{name: "single", request: "What is in this picture?", tasks: func(img string) []map[string]any {
		return []map[string]any{task(1, "image-to-text", nil, map[string]string{"image": img})}
	}},
	{name: "chain", request: "Read this picture's caption aloud.", tasks: func(img string) []map[string]any {
		return []map[string]any{
			task(1, "image-to-text", nil, map[string]string{"image": img}),
			task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}),
		}
	}},
	{name: "fanout", request: "Classify this picture, find its objects, caption it and estimate its depth.", tasks: func(img string) []map[string]any {
		return []map[string]any{
			task(1, "image-classification", nil, map[string]string{"image": img}),
			task(2, "object-detection", nil, map[string]string{"image": img}),
			task(3, "image-to-text", nil, map[string]string{"image": img}),
			task(4, "depth-estimation", nil, map[string]string{"image": img}),
		}
	}},
}

// benchAnswer is a 60-word answer, streamed word by word.
var benchAnswer = strings.TrimSpace(strings.Repeat("The picture shows a quiet street with trees and a red bicycle. ", 5))

func BenchmarkTurn(b *testing.B) {
	for _, warm := range []bool{false, true} {
		for _, sc := range benchScenarios {
			name := "cold/" + sc.name
			if warm {
				name = "warm/" + sc.name
			}
			b.Run(name, func(b *testing.B) { benchTurn(b, sc, warm, benchLatency, pipeline.SelectController) })
		}
	}
	for _, sc := range benchScenarios {
		b.Run("cpu-warm/"+sc.name, func(b *testing.B) { benchTurn(b, sc, true, cpuLatency, pipeline.SelectController) })
	}
	// The shipped default, selection: auto — these requests state no
	// preference, so the skills' curated defaults run without a selection
	// call.
	for _, sc := range benchScenarios {
		b.Run("auto-warm/"+sc.name, func(b *testing.B) { benchTurn(b, sc, true, benchLatency, pipeline.SelectAuto) })
	}
	for _, sc := range benchScenarios {
		b.Run("auto-cpu-warm/"+sc.name, func(b *testing.B) { benchTurn(b, sc, true, cpuLatency, pipeline.SelectAuto) })
	}
	// HuggingGPT's always-ask selection on a server with a second slot
	// (OLLAMA_NUM_PARALLEL=2, controller.max_concurrent: 2).
	for _, sc := range benchScenarios {
		b.Run("ctl2-warm/"+sc.name, func(b *testing.B) { benchTurn(b, sc, true, twoSlots(benchLatency), pipeline.SelectController) })
	}
	b.Run("auto-warm/"+revisedScenario.name, func(b *testing.B) { benchTurn(b, revisedScenario, true, benchLatency, pipeline.SelectAuto) })
}

// twoSlots is l on a server that serves two chats at once.
func twoSlots(l fakeollama.Latency) fakeollama.Latency {
	l.Slots = 2
	return l
}

// benchTurn times turns of one scenario. A cold turn is the first of a
// session; a warm one follows a greeting turn, as the seven requests of a
// demo follow each other, so the server's prompt cache holds what the
// previous turn left.
//
// Besides wall time and time to the first answer token it reports the
// turn's critical path — the chain of work the answer waited on, walked
// back from the turn's end (critpath.go's note) — as milliseconds of
// controller time, expert time and the gaps between them, and the most
// expert calls in flight at once (the overlap of a fan-out).
func benchTurn(b *testing.B, sc benchScenario, warm bool, lat fakeollama.Latency, sel pipeline.Selection) {
	var wall, ttft time.Duration
	var calls, prompt, prefilled, overlap, planTok int
	var path critPath
	for i := 0; i < b.N; i++ {
		r := newBenchRig(b, sc, lat, sel)
		var history []pipeline.Message
		if warm {
			r.greeting = true
			rep, err := r.eng.Run(context.Background(), pipeline.Turn{Request: "Hi! What can you do?"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			r.greeting = false
			history = []pipeline.Message{{Role: "user", Content: rep.Request}, {Role: "assistant", Content: rep.Answer}}
		}
		c0, p0, e0 := r.ollama.Prefill()
		r.planTokens = 0
		b.StartTimer()
		start := time.Now()
		first := time.Duration(0)
		_, err := r.eng.Run(context.Background(), pipeline.Turn{Request: sc.request, Attachments: []string{r.image}, History: history}, func(ev pipeline.Event) {
			if _, ok := ev.(pipeline.TokenEvent); ok && first == 0 {
				first = time.Since(start)
			}
		})
		end := time.Now()
		wall += end.Sub(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		ttft += first
		planTok += r.planTokens
		c, p, e := r.ollama.Prefill()
		calls, prompt, prefilled = calls+c-c0, prompt+p-p0, prefilled+e-e0
		ctl, experts := r.spans(start)
		path = path.add(criticalPath(start, end, ctl, experts))
		overlap += maxOverlap(experts)
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall.Milliseconds())/n, "wall-ms/turn")
	b.ReportMetric(float64(ttft.Milliseconds())/n, "ttft-ms/turn")
	b.ReportMetric(float64(calls)/n, "ctl-calls/turn")
	b.ReportMetric(float64(planTok)/n, "plan-tok/turn")
	b.ReportMetric(float64(prompt)/n, "prompt-tok/turn")
	b.ReportMetric(float64(prefilled)/n, "prefill-tok/turn")
	b.ReportMetric(float64(path.ctl.Milliseconds())/n, "cp-ctl-ms/turn")
	b.ReportMetric(float64(path.expert.Milliseconds())/n, "cp-expert-ms/turn")
	b.ReportMetric(float64(path.gap.Milliseconds())/n, "cp-gap-ms/turn")
	b.ReportMetric(float64(overlap)/n, "max-experts/turn")
}

// spans returns the controller's and the experts' busy intervals since
// start, as the fakes recorded them.
func (r *benchRig) spans(start time.Time) (ctl, experts []span) {
	for _, q := range r.ollama.Requests() {
		if q.Path == "/api/chat" && !q.Time.Before(start) {
			ctl = append(ctl, span{q.Time, q.End})
		}
	}
	for _, q := range r.hf.Requests() {
		if !q.Start.Before(start) {
			experts = append(experts, span{q.Start, q.End})
		}
	}
	return ctl, experts
}

type benchRig struct {
	// greeting makes the controller plan no task (a chat turn).
	greeting bool
	// planTokens counts the tokens of the plan replies since the last
	// reset, as the fake decodes them (four bytes a token).
	planTokens int
	ollama     *fakeollama.Server
	hf         *fakehf.Server
	eng        *pipeline.Engine
	image      string
}

func newBenchRig(b testing.TB, sc benchScenario, lat fakeollama.Latency, sel pipeline.Selection) *benchRig {
	b.Helper()
	if bb, ok := b.(*testing.B); ok {
		bb.StopTimer()
	}
	r := &benchRig{ollama: fakeollama.New(b), hf: fakehf.New(b)}
	dir := b.TempDir()
	r.image = filepath.Join(dir, "street.png")
	if err := os.WriteFile(r.image, fakehf.PNG(64, 48), 0o644); err != nil {
		b.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	plan := sc.tasks(r.image)
	var revised []map[string]any
	if sc.revision != nil {
		revised = sc.revision(r.image)
	}
	// With a revision, the skills only the plan uses fail (HTTP 500).
	revisedSkills := map[string]bool{}
	for _, t := range revised {
		revisedSkills[t["task"].(string)] = true
	}
	served := map[string]bool{}
	for _, t := range append(slices.Clone(plan), revised...) {
		s, _ := cat.Skill(t["task"].(string))
		if served[s.Name] {
			continue
		}
		served[s.Name] = true
		for _, m := range s.Models {
			if m.ServedBy(skills.EndpointHuggingFace) {
				mb := r.hf.Model(m.ID, s.Name).Delay(benchExpertDelay)
				if revised != nil && !revisedSkills[s.Name] {
					mb.Status(http.StatusInternalServerError, "the model crashed")
				}
			}
		}
	}
	// The plan is written as a grammar-constrained model writes it under
	// the schema the planning call sends (benchPlanUnder): the same
	// harness measures every version of the schema; a revision too.
	r.ollama.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	r.ollama.SetLatency(lat)
	var mu sync.Mutex
	r.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		tasks := plan
		if r.greeting {
			tasks = []map[string]any{}
		}
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StageRevision) {
			tasks = revised
		}
		rep := benchReply(req, func() string { return benchPlanUnder(req.Format, tasks) })
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning) {
			mu.Lock()
			r.planTokens += fakeollama.PromptTokens(rep.Content)
			mu.Unlock()
		}
		return rep
	})
	r.hf.RequireToken("hf_bench")
	ctl, err := controller.New(r.ollama.URL, "ctl", controller.Options{Timeout: time.Minute, MaxConcurrent: max(lat.Slots, 0)})
	if err != nil {
		b.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
		huggingface.New(huggingface.Options{BaseURL: r.hf.URL, Token: "hf_bench", HTTPClient: r.hf.Client()}))
	r.eng = pipeline.New(ctl, cat, router, benchEngineOptions(pipeline.Options{OutputDir: dir, ControllerTasks: true, TaskTimeout: time.Minute, Selection: sel}))
	return r
}

// benchReply answers as a sensible controller would: the scenario's plan,
// the first candidate of every selection (one call or a batch), and a
// 60-word answer.
func benchReply(req *api.ChatRequest, plan func() string) fakeollama.Reply {
	var schema struct {
		Properties map[string]struct {
			Enum  []string `json:"enum"`
			Items struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"items"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(req.Format, &schema)
	switch {
	case schema.Properties["tasks"].Items.Properties != nil:
		return fakeollama.Reply{Content: plan()}
	case len(schema.Properties["id"].Enum) > 0:
		b, _ := json.Marshal(map[string]string{"id": schema.Properties["id"].Enum[0], "reason": benchReason})
		return fakeollama.Reply{Content: string(b)}
	case schema.Properties["picks"].Items.Properties == nil && strings.Contains(string(req.Format), `"picks"`):
		return fakeollama.Reply{Content: benchPicks(req)}
	case schema.Properties["choices"].Items.Properties != nil:
		return fakeollama.Reply{Content: benchChoices(req)}
	}
	return fakeollama.Reply{Content: benchAnswer}
}

// benchReason is a reason of a typical length; a reply under a schema
// with maxLength gets as much of it as the grammar allows.
const benchReason = "the most used candidate, well suited to the request"

// benchPicks answers a picks-then-reasons selection with the first
// candidate of every task and a reason as long as the schema lets it be,
// in the schema's order, as a grammar-constrained model writes it.
func benchPicks(req *api.ChatRequest) string {
	var schema struct {
		Properties struct {
			Picks struct {
				Required []string `json:"required"`
			} `json:"picks"`
			Reasons struct {
				Properties map[string]struct {
					MaxLength int `json:"maxLength"`
				} `json:"properties"`
			} `json:"reasons"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(req.Format, &schema)
	var picks, reasons []string
	for _, id := range schema.Properties.Picks.Required {
		picks = append(picks, fmt.Sprintf("%q:1", id))
		r := benchReason
		if n := schema.Properties.Reasons.Properties[id].MaxLength; n > 0 && n < len(r) {
			r = r[:n]
		}
		reasons = append(reasons, fmt.Sprintf("%q:%q", id, r))
	}
	return `{"picks":{` + strings.Join(picks, ",") + `},"reasons":{` + strings.Join(reasons, ",") + `}}`
}

// benchChoices answers a batched selection with the first candidate of
// every task id in the schema, by number or by id, whichever it asks for,
// with a reason of a typical length (the reply form before picks came
// first).
func benchChoices(req *api.ChatRequest) string {
	var schema struct {
		Properties struct {
			Choices struct {
				Items struct {
					Properties struct {
						ID    struct{ Enum []int }    `json:"id"`
						Pick  struct{ Enum []int }    `json:"pick"`
						Model struct{ Enum []string } `json:"model"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"choices"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(req.Format, &schema)
	p := schema.Properties.Choices.Items.Properties
	var out []map[string]any
	for _, id := range p.ID.Enum {
		c := map[string]any{"id": id, "reason": benchReason}
		switch {
		case len(p.Pick.Enum) > 0:
			c["pick"] = p.Pick.Enum[0]
		case len(p.Model.Enum) > 0:
			c["model"] = p.Model.Enum[0]
		}
		out = append(out, c)
	}
	b, _ := json.Marshal(map[string]any{"choices": out})
	return string(b)
}

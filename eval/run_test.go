package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/eval"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// attached finds the path of an attached file of kind in a planning
// message ("- /tmp/…/house.png (image)").
func attached(req *api.ChatRequest, kind string) string {
	last := req.Messages[len(req.Messages)-1].Content
	m := regexp.MustCompile(`- (\S+) \(` + kind).FindStringSubmatch(last)
	if m == nil {
		return ""
	}
	return m[1]
}

// chunks splits s into n streamed pieces, so the fake reports n tokens.
func chunks(s string, n int) []string {
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > 0 {
		k := min(size, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// engine is a real Chorus engine on the fake Ollama with the embedded
// catalog; respond scripts the controller.
func engine(t *testing.T, respond func(req *api.ChatRequest) fakeollama.Reply) (*pipeline.Engine, *fakeollama.Server) {
	t.Helper()
	ol := fakeollama.New(t)
	ol.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	ol.OnChat(respond)
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.New(ol.URL, "ctl", controller.Options{PlanTokens: 512, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New())
	return pipeline.New(ctl, cat, router, pipeline.Options{OutputDir: t.TempDir()}), ol
}

func isPlan(req *api.ChatRequest) bool {
	return pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning)
}

// TestRunScriptedController runs a four-request suite against a controller
// that answers the gold plan, a near miss, a truncated plan and a cyclic
// one, and checks every metric against its value computed by hand.
func TestRunScriptedController(t *testing.T) {
	suite := &eval.Suite{Name: "scripted", Cases: []eval.Case{
		{ID: "gold", Shape: eval.ShapeChain, Request: "Describe {house.png} and read the description aloud.", Files: []string{"house.png"},
			Gold: []pipeline.Task{{ID: 1, Task: "image-to-text"}, {ID: 2, Task: "text-to-speech", Dep: []int{1}}}},
		{ID: "near-miss", Shape: eval.ShapeChain, Request: "Caption {street.png}, then read the caption aloud.", Files: []string{"street.png"},
			Gold: []pipeline.Task{{ID: 1, Task: "image-to-text"}, {ID: 2, Task: "text-to-speech", Dep: []int{1}}}},
		{ID: "truncated", Shape: eval.ShapeSingle, Request: "Read the text in {sign.png}.", Files: []string{"sign.png"},
			Gold: []pipeline.Task{{ID: 1, Task: "ocr"}}},
		{ID: "cyclic", Shape: eval.ShapeChain, Request: "Generate an image of a fox and describe it.",
			Gold: []pipeline.Task{{ID: 1, Task: "text-to-image"}, {ID: 2, Task: "image-to-text", Dep: []int{1}}}},
	}}
	var mu sync.Mutex
	calls := map[string]int{}
	eng, _ := engine(t, func(req *api.ChatRequest) fakeollama.Reply {
		if !isPlan(req) {
			return fakeollama.Reply{Content: `{"choices": []}`}
		}
		last := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(last, "house.png"):
			calls["gold"]++
			img := attached(req, "image")
			plan := `{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + img + `"}},` +
				`{"task":"text-to-speech","id":2,"dep":[1],"args":{"text":"<resource>-1"}}]}`
			return fakeollama.Reply{Chunks: chunks(plan, 12), PromptEvalCount: 100}
		case strings.Contains(last, "street.png"):
			// The wrong first task, in a Markdown fence: readable, but
			// not the strict JSON a schema asks for.
			calls["near-miss"]++
			img := attached(req, "image")
			plan := "```json\n" + `{"tasks":[{"task":"image-classification","id":1,"dep":[],"args":{"image":"` + img + `"}},` +
				`{"task":"text-to-speech","id":2,"dep":[1],"args":{"text":"<resource>-1"}}]}` + "\n```"
			return fakeollama.Reply{Chunks: chunks(plan, 8), PromptEvalCount: 100}
		case strings.Contains(last, "sign.png") || strings.Contains(last, "cut off"):
			// Cut off by the token limit, and again when re-asked.
			calls["truncated"]++
			return fakeollama.Reply{Chunks: chunks(`{"tasks":[{"task":"ocr","id":1,"dep":[],"args":{"image":"`, 5), DoneReason: "length", PromptEvalCount: 100}
		default:
			// Each task waits for the other, but only the second uses the
			// first's output: an ordering-only cycle the validator breaks.
			calls["cyclic"]++
			plan := `{"tasks":[{"task":"text-to-image","id":1,"dep":[2],"args":{"text":"a red fox in the snow"}},` +
				`{"task":"image-to-text","id":2,"dep":[1],"args":{"image":"<resource>-1"}}]}`
			return fakeollama.Reply{Chunks: chunks(plan, 20), PromptEvalCount: 100}
		}
	})
	var progress []eval.Progress
	rs, err := eval.Run(context.Background(), eng, "ctl", suite, eval.Options{Progress: func(p eval.Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || len(progress) != 4 || progress[3].Done != 4 || progress[3].Total != 4 {
		t.Fatalf("%d results, progress %+v", len(rs), progress)
	}
	if calls["truncated"] != 2 {
		t.Errorf("the truncated plan was asked %d times, want 2 (one re-ask)", calls["truncated"])
	}
	by := map[string]eval.Result{}
	for _, r := range rs {
		by[r.Case] = r
	}
	if !by["gold"].ValidAsWritten || !by["gold"].Usable {
		t.Errorf("gold plan: %+v", by["gold"])
	}
	if by["near-miss"].ValidAsWritten || !by["near-miss"].Usable {
		t.Errorf("a fenced plan is not valid as written but usable: %+v", by["near-miss"])
	}
	if by["truncated"].ValidAsWritten || by["truncated"].Usable || len(by["truncated"].Plan) != 0 {
		t.Errorf("a plan cut off twice is neither: %+v", by["truncated"])
	}
	if by["cyclic"].ValidAsWritten || !by["cyclic"].Usable || !by["cyclic"].Score.FoT {
		t.Errorf("the cycle is repaired into the gold chain: %+v", by["cyclic"])
	}

	m := eval.Summarize("ctl", suite.Name, len(suite.Cases), 1, false, rs).Metrics["all"]
	// By hand, per request (gold nodes/edges → predicted → matched):
	//   gold:      2/1 → 2/1 → 2/1, GED 0
	//   near-miss: 2/1 → 2/1 → 1/0 (image-classification ≠ image-to-text;
	//              the edge has an unmatched end), GED 1 (one rename) of
	//              the most it could be, max(2, 2)+1+1 = 4
	//   truncated: 1/0 → 0/0 → 0/0, GED 1 (insert ocr) of 1
	//   cyclic:    2/1 → 2/1 → 2/1 after the cycle is broken, GED 0
	// Valid as written: gold only, 1/4. After repair: all but the
	// truncated one, 3/4. Task accuracy: the one single-task gold
	// (truncated) missed, 0/1.
	// Node F1: matched 2+1+0+2 = 5, predicted 6, gold 7: P 5/6, R 5/7,
	// F1 = 2·(25/42)/(65/42) = 10/13.
	// Edge F1: matched 1+0+0+1 = 2 of 3 predicted and 3 gold: 2/3.
	// GED: (0 + 1/4 + 1 + 0)/4 = 5/16. TS: gold and cyclic, 2/4; FoT the
	// same, 2/4.
	// Tokens: prompt 100, 100, 200 (two calls), 100 → median 100;
	// completion 12, 8, 5+5, 20 → median (10+12)/2 = 11.
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if m.ValidAsWritten != (eval.Rate{Hits: 1, Of: 4}) || m.ValidAfterRepair != (eval.Rate{Hits: 3, Of: 4}) {
		t.Errorf("valid as written %v, after repair %v; want 1/4, 3/4", m.ValidAsWritten, m.ValidAfterRepair)
	}
	if m.TaskAccuracy != (eval.Rate{Hits: 0, Of: 1}) {
		t.Errorf("task accuracy %v, want 0/1", m.TaskAccuracy)
	}
	if !near(m.NodeF1.Precision, 5.0/6) || !near(m.NodeF1.Recall, 5.0/7) || !near(m.NodeF1.F1, 10.0/13) {
		t.Errorf("node F1 %+v, want P 5/6 R 5/7 F1 10/13", m.NodeF1)
	}
	if !near(m.EdgeF1.F1, 2.0/3) {
		t.Errorf("edge F1 %+v, want 2/3", m.EdgeF1)
	}
	if !near(m.GED, 5.0/16) {
		t.Errorf("GED %v, want 5/16", m.GED)
	}
	if m.TS != (eval.Rate{Hits: 2, Of: 4}) || m.FoT != (eval.Rate{Hits: 2, Of: 4}) {
		t.Errorf("TS %v FoT %v, want 2/4 each", m.TS, m.FoT)
	}
	if m.PromptTokens != 100 || m.CompletionTokens != 11 {
		t.Errorf("median tokens: prompt %v completion %v, want 100, 11", m.PromptTokens, m.CompletionTokens)
	}
	if m.Errors != 0 {
		t.Errorf("%d controller errors, want 0", m.Errors)
	}
}

// TestRunScoresConstraints: where a request limits the models, the plan's
// constraints are scored against the gold's; where it does not, a plan
// that sets some anyway is counted as inventing them. Both are in the
// results, the metrics, the JSON and the table.
func TestRunScoresConstraints(t *testing.T) {
	img := func(task string) []pipeline.Task { return []pipeline.Task{{ID: 1, Task: task}} }
	suite := &eval.Suite{Name: "cons", Cases: []eval.Case{
		{ID: "right", Request: "a picture of a fox — apache-2.0 models only", Gold: img("text-to-image"), Constraints: "license=apache-2.0"},
		{ID: "wrong", Request: "a picture of a cat — MIT models only", Gold: img("text-to-image"), Constraints: "license=mit"},
		{ID: "missed", Request: "a picture of a dog with the smallest model", Gold: img("text-to-image"), Constraints: "smallest"},
		{ID: "invented", Request: "a picture of an owl", Gold: img("text-to-image")},
		{ID: "none", Request: "a picture of a hen", Gold: img("text-to-image")},
	}}
	eng, _ := engine(t, func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		cons := ""
		switch {
		case strings.Contains(last, "fox"):
			cons = `,"constraints":{"licenses":["Apache-2.0"]}`
		case strings.Contains(last, "cat"):
			cons = `,"constraints":{"licenses":["apache-2.0"]}`
		case strings.Contains(last, "owl"):
			cons = `,"constraints":{"local_only":true}`
		}
		return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","id":1,"dep":[],"args":{"text":"an animal"}}]` + cons + `}`}
	})
	rs, err := eval.Run(context.Background(), eng, "ctl", suite, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]eval.Result{}
	for _, r := range rs {
		by[r.Case] = r
	}
	for id, want := range map[string]bool{"right": true, "wrong": false, "missed": false} {
		r := by[id]
		if r.ConstraintsRight == nil || *r.ConstraintsRight != want {
			t.Errorf("%s: constraints right %v, want %v (plan %q, gold %q)", id, r.ConstraintsRight, want, r.Constraints, r.GoldConstraints)
		}
	}
	if by["wrong"].Constraints != "license=apache-2.0" || by["wrong"].GoldConstraints != "license=mit" {
		t.Errorf("the result shows the plan's and the gold's constraints: %q, %q", by["wrong"].Constraints, by["wrong"].GoldConstraints)
	}
	if by["invented"].ConstraintsRight != nil || by["invented"].Constraints != "local-only" {
		t.Errorf("a request without constraints has no verdict, only what the plan set: %+v", by["invented"])
	}
	sum := eval.Summarize("ctl", suite.Name, len(suite.Cases), 1, false, rs)
	m := sum.Metrics["all"]
	if m.Constraints != (eval.Rate{Hits: 1, Of: 3}) || m.ConstraintsInvented != (eval.Rate{Hits: 1, Of: 2}) {
		t.Errorf("constraints right %v, invented %v; want 1/3, 1/2", m.Constraints, m.ConstraintsInvented)
	}
	var js strings.Builder
	if err := eval.WriteJSON(&js, []eval.Summary{sum}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"constraints": {`, `"constraints_invented": {`, `"constraints_right": false`, `"gold_constraints": "smallest"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("the JSON lacks %s", want)
		}
	}
	var tb strings.Builder
	if err := eval.WriteTable(&tb, sum); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^constraints right +33%`).MatchString(tb.String()) || !regexp.MustCompile(`(?m)^constraints invented \(0 best\) +50%`).MatchString(tb.String()) {
		t.Errorf("the table's constraint rows:\n%s", tb.String())
	}
}

func TestRunStopsOnAModelNotPulled(t *testing.T) {
	eng, _ := engine(t, func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: `{"tasks":[]}`} })
	ctl, err := controller.New(eng.Controller().Host(), "missing:7b", controller.Options{PlanTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	suite := &eval.Suite{Name: "s", Cases: []eval.Case{{ID: "a", Request: "hi"}, {ID: "b", Request: "hello"}}}
	rs, err := eval.Run(context.Background(), eng.WithController(ctl), "missing:7b", suite, eval.Options{})
	if !errors.Is(err, controller.ErrModelMissing) || !strings.Contains(err.Error(), "ollama pull missing:7b") {
		t.Fatalf("err = %v, want model not pulled naming `ollama pull missing:7b`", err)
	}
	if len(rs) != 0 {
		t.Errorf("%d results from a model that is not there", len(rs))
	}
}

func TestRunCancelledKeepsWhatItHas(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	eng, _ := engine(t, func(req *api.ChatRequest) fakeollama.Reply {
		if n.Add(1) == 2 {
			cancel() // Ctrl+C while the second request is being planned
		}
		return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","id":1,"dep":[],"args":{"text":"a fox"}}]}`}
	})
	suite := &eval.Suite{Name: "s", Cases: []eval.Case{{ID: "a", Request: "draw a fox", Gold: []pipeline.Task{{ID: 1, Task: "text-to-image"}}}, {ID: "b", Request: "draw a cat"}, {ID: "c", Request: "draw a dog"}}}
	rs, err := eval.Run(ctx, eng, "ctl", suite, eval.Options{Repeat: 2})
	if !errors.Is(err, pipeline.ErrCancelled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	if len(rs) < 1 || len(rs) > 2 || rs[0].Case != "a" || !rs[0].Score.FoT {
		t.Errorf("results so far = %+v, want the first request's (and perhaps the second's)", rs)
	}
}

// oracleArgs writes arguments for a gold task the way a good planner
// would: a media or text argument takes a dependency's output of that kind
// when there is one, else an attached file of that kind, else (text) a
// literal.
func oracleArgs(cat *skills.Catalog, gold []pipeline.Task, task pipeline.Task, files []string) map[string]string {
	s, _ := cat.Skill(task.Task)
	args := map[string]string{}
	for _, a := range s.Args {
		if a.Optional {
			continue
		}
		for _, d := range task.Dep {
			dep, _ := cat.Skill(gold[d-1].Task)
			if slices.Contains(dep.Outputs, a.Type) {
				args[a.Name] = pipeline.RefString(d)
				break
			}
		}
		if _, ok := args[a.Name]; ok {
			continue
		}
		for _, f := range files {
			if pipeline.ModalityOf(f) == a.Type {
				args[a.Name] = f
			}
		}
		if _, ok := args[a.Name]; !ok && a.Type == skills.Text {
			args[a.Name] = "a red fox in the snow"
		}
	}
	return args
}

// oraclePlan writes a gold plan as a good planner would: the gold's
// arguments with each "{name}" file placeholder as the generated file's
// full path, and the arguments the gold leaves free filled by oracleArgs.
func oraclePlan(t *testing.T, cat *skills.Catalog, dir string, gold []pipeline.Task, files []string) []map[string]any {
	t.Helper()
	tasks := []map[string]any{}
	for _, g := range gold {
		args := oracleArgs(cat, gold, g, files)
		for k, v := range g.Args {
			if m := regexp.MustCompile(`^\{(.+)\}$`).FindStringSubmatch(v); m != nil {
				p, err := eval.Input(dir, m[1])
				if err != nil {
					t.Fatal(err)
				}
				v = p
			}
			args[k] = v
		}
		tasks = append(tasks, map[string]any{"task": g.Task, "id": g.ID, "dep": append([]int{}, g.Dep...), "args": args})
	}
	return tasks
}

// replyConstraints writes a case's constraints as a planner does, in the
// plan's "constraints" object.
func replyConstraints(t *testing.T, s string) map[string]any {
	t.Helper()
	c, err := pipeline.ParseConstraints(s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if len(c.Licenses) > 0 {
		out["licenses"] = c.Licenses
	}
	if !c.MaxSize.IsZero() {
		out["max_size"] = c.MaxSize.String()
	}
	if c.LocalOnly {
		out["local_only"] = true
	}
	if c.Prefer != "" {
		out["prefer"] = c.Prefer
	}
	if c.Benchmark != "" {
		out["benchmark"] = c.Benchmark
	}
	return out
}

// TestEmbeddedSuiteGoldRuns: a controller that answers every request of
// the embedded suite with its gold plan — or with any of its alternatives
// — scores perfectly: every gold is a plan Chorus's validator keeps as it
// is (no repair note, no argument changed), and its arguments are right.
func TestEmbeddedSuiteGoldRuns(t *testing.T) {
	suite, err := eval.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, c := range suite.Cases {
		most = max(most, len(c.Alternatives))
	}
	for alt := 0; alt <= most; alt++ {
		dir := t.TempDir()
		byRequest := map[string]string{}
		sent := map[string][]map[string]any{}
		var cases []eval.Case
		for _, c := range suite.Cases {
			gold := c.Gold
			if alt > 0 {
				if len(c.Alternatives) < alt {
					continue
				}
				gold = c.Alternatives[alt-1]
			}
			cases = append(cases, c)
			turn, err := c.Turn(dir)
			if err != nil {
				t.Fatal(err)
			}
			tasks := oraclePlan(t, cat, dir, gold, turn.Attachments)
			reply := map[string]any{"tasks": tasks}
			if c.Constraints != "" {
				reply["constraints"] = replyConstraints(t, c.Constraints)
			}
			b, _ := json.Marshal(reply)
			byRequest["Request: "+turn.Request] = string(b)
			sent[c.ID] = tasks
		}
		eng, _ := engine(t, func(req *api.ChatRequest) fakeollama.Reply {
			last := req.Messages[len(req.Messages)-1].Content
			for k, plan := range byRequest {
				if strings.HasSuffix(last, k) {
					return fakeollama.Reply{Content: plan}
				}
			}
			return fakeollama.Reply{Content: `{"tasks":[]}`}
		})
		sub := &eval.Suite{Name: suite.Name, Cases: cases}
		rs, err := eval.Run(context.Background(), eng, "ctl", sub, eval.Options{Dir: dir, Tools: cat.Names()})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if !r.ValidAsWritten || !r.Score.FoT || r.Arguments.Hits != r.Arguments.Of {
				t.Errorf("alternative %d, %s: valid as written %v, FoT %v, arguments %v, notes %q, plan %+v", alt, r.Case, r.ValidAsWritten, r.Score.FoT, r.Arguments, r.Notes, r.Plan)
				continue
			}
			// Unchanged: the validated plan has exactly the arguments sent.
			for i, task := range r.Plan {
				want, _ := json.Marshal(sent[r.Case][i]["args"])
				got, _ := json.Marshal(task.Args)
				if string(want) != string(got) {
					t.Errorf("alternative %d, %s: task %d's arguments %s became %s", alt, r.Case, task.ID, want, got)
				}
			}
			if alt == 0 && r.GoldAlternative != 0 {
				t.Errorf("%s: the gold itself scored as alternative %d", r.Case, r.GoldAlternative)
			}
		}
		m := eval.Summarize("ctl", suite.Name, len(cases), 1, false, rs).Metrics["all"]
		if m.Constraints.Hits != m.Constraints.Of || m.ConstraintsInvented.Hits != 0 || (alt == 0 && m.Constraints.Of < 8) {
			t.Errorf("alternative %d: constraints right %v, invented %v; want all right (at least 8) and none invented", alt, m.Constraints, m.ConstraintsInvented)
		}
		if m.NodeF1.F1 != 1 || (m.EdgeF1.Defined && m.EdgeF1.F1 != 1) || m.GED != 0 || m.TaskBench.AsWritten.NodeF1.F1 != 1 || m.TaskBench.AsWritten.ED != 0 {
			t.Errorf("alternative %d: node F1 %v, edge F1 %v, GED %v, TaskBench %+v; want 1, 1, 0", alt, m.NodeF1.F1, m.EdgeF1.F1, m.GED, m.TaskBench.AsWritten)
		}
		t.Logf("alternative %d: %d requests, arguments %v", alt, len(rs), m.Arguments)
	}
}

// TestRunTaskBenchAsWrittenEqualsEvaluatePy: `chorus eval` on the
// TaskBench fixture, with a controller that answers each request with a
// Chorus plan saying what the fixture's prediction says (replies.json),
// reports TaskBench's node F1, link F1 and ed as written equal to what
// TaskBench's evaluate.py printed for the predictions (expected.json) —
// overall and per split, to three decimals and beyond.
func TestRunTaskBenchAsWrittenEqualsEvaluatePy(t *testing.T) {
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(name string) (string, bool) {
		s, _, ok := cat.Resolve(name)
		if !ok {
			return "", false
		}
		return s.Name, true
	}
	suite, err := eval.Load("testdata/taskbench/data.json", resolve)
	if err != nil {
		t.Fatal(err)
	}
	var replies map[string]string
	readJSON(t, "testdata/taskbench/replies.json", &replies)
	var want map[string]struct {
		Samples int     `json:"all_samples"`
		Scored  int     `json:"node_supports"`
		NodeP   float64 `json:"node_micro_precision_no_matching"`
		NodeR   float64 `json:"node_micro_recall_no_matching"`
		NodeF1  float64 `json:"node_micro_f1_no_matching"`
		LinkF1  float64 `json:"link_binary_f1"`
		ED      float64 `json:"edit_distance"`
	}
	readJSON(t, "testdata/taskbench/expected.json", &want)

	dir := t.TempDir()
	byRequest := map[string]string{}
	for _, c := range suite.Cases {
		turn, err := c.Turn(dir)
		if err != nil {
			t.Fatal(err)
		}
		byRequest["Request: "+turn.Request] = replies[c.ID]
	}
	eng, _ := engine(t, func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		for k, reply := range byRequest {
			if strings.HasSuffix(last, k) {
				return fakeollama.Reply{Content: reply}
			}
		}
		return fakeollama.Reply{Content: `{"tasks":[]}`}
	})
	rs, err := eval.Run(context.Background(), eng, "ctl", suite, eval.Options{Dir: dir, Tools: cat.Names()})
	if err != nil {
		t.Fatal(err)
	}
	sum := eval.Summarize("ctl", suite.Name, len(suite.Cases), 1, false, rs)
	for col, split := range map[string]string{"all": "overall", eval.ShapeSingle: "single", eval.ShapeChain: "chain", eval.ShapeGraph: "dag"} {
		w := want[split+"_overall"]
		got := sum.Metrics[col].TaskBench.AsWritten
		// evaluate.py's all_samples counts the ids with a prediction;
		// Chorus counts every run and says how many gave one.
		if got.Predicted != w.Scored {
			t.Errorf("%s: %d predictions scored, evaluate.py %d", split, got.Predicted, w.Scored)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"node precision", got.NodeF1.Precision, w.NodeP}, {"node recall", got.NodeF1.Recall, w.NodeR},
			{"node F1", got.NodeF1.F1, w.NodeF1}, {"link F1", got.LinkF1.F1, w.LinkF1}, {"ed", got.ED, w.ED},
		} {
			if math.Abs(c.got-c.want) > 1e-9 {
				t.Errorf("%s %s as written = %.6f, evaluate.py %.6f", split, c.name, c.got, c.want)
			}
		}
	}
	// The request evaluate.py never saw a prediction for is in the JSON
	// with its raw reply and no reading.
	for _, r := range rs {
		if r.Case == "d4" && (r.AsWritten != nil || r.TaskBench.AsWritten != nil || len(r.Replies) == 0 || r.TaskBench.AfterRepair == nil) {
			t.Errorf("d4: as written %+v, counts %+v, replies %q", r.AsWritten, r.TaskBench, r.Replies)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

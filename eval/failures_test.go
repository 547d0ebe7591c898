package eval_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/eval"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// TestFailureSuiteNamesSkills: every skill a failure case fails, is
// served by, or plans is one of the catalog's.
func TestFailureSuiteNamesSkills(t *testing.T) {
	s, err := eval.Failures()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Cases {
		names := slices.Clone(c.Fail)
		for _, set := range c.Serves {
			names = append(names, set...)
		}
		for _, g := range c.Gold {
			names = append(names, g.Task)
		}
		if len(c.Fail) == 0 || len(c.Serves) == 0 {
			t.Errorf("case %s: no failing skill or nothing that serves it", c.ID)
		}
		for _, n := range names {
			if _, ok := cat.Skill(n); !ok {
				t.Errorf("case %s names %q, which is no skill", c.ID, n)
			}
		}
	}
}

// TestRunFailures runs three failure cases on a scripted controller: the
// video request is revised to a still image (served only with revision),
// the animal request is planned around the failing classifier at once
// (served either way), and the speech request has no other way (its
// revision is empty: served neither way).
func TestRunFailures(t *testing.T) {
	all, err := eval.Failures()
	if err != nil {
		t.Fatal(err)
	}
	suite := &eval.Suite{Name: "failures"}
	for _, c := range all.Cases {
		if slices.Contains([]string{"video-down", "classify-down", "speech-down"}, c.ID) {
			suite.Cases = append(suite.Cases, c)
		}
	}
	var mu sync.Mutex
	stages := map[string]int{}
	eng, _ := engine(t, func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		plan := req.Messages
		request := ""
		for _, m := range plan {
			if pipeline.PromptStage(m.Content) == string(pipeline.StagePlanning) {
				request = m.Content
			}
		}
		stage := pipeline.PromptStage(last)
		mu.Lock()
		stages[stage]++
		mu.Unlock()
		switch {
		case stage == string(pipeline.StagePlanning) && strings.Contains(request, "video of a fox"):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-video","id":1,"dep":[],"args":{"text":"a fox in snow"}}]}`}
		case stage == string(pipeline.StagePlanning) && strings.Contains(request, "kind of animal"):
			img := attached(req, "image")
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"visual-question-answering","id":1,"dep":[],"args":{"image":"` + img + `","text":"what animal is this?"}}]}`}
		case stage == string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-speech","id":1,"dep":[],"args":{"text":"the early bird catches the worm"}}]}`}
		case stage == string(pipeline.StageRevision) && strings.Contains(request, "video of a fox"):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-image","id":2,"dep":[],"args":{"text":"a fox in snow"}}]}`}
		case stage == string(pipeline.StageRevision):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[]}`}
		case stage == string(pipeline.StageSelection):
			return fakeollama.Reply{Content: `{"picks":{},"reasons":{}}`}
		}
		return fakeollama.Reply{Content: "Done."}
	})
	if _, err := eval.RunFailures(context.Background(), eng, "ctl", suite, eval.FailureOptions{Dir: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), "set planner.revise: 1") {
		t.Fatalf("with planner.revise 0: %v", err)
	}
	opts := eng.Options()
	opts.Revise = 1
	eng = pipeline.New(eng.Controller(), eng.Catalog(), eng.Router(), opts)
	rs, err := eval.RunFailures(context.Background(), eng, "ctl", suite, eval.FailureOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]bool{"video-down": {false, true}, "classify-down": {true, true}, "speech-down": {false, false}}
	for _, r := range rs {
		w := want[r.Case]
		if r.ServedWithout != w[0] || r.ServedWith != w[1] || r.Error != "" {
			t.Errorf("%s: served without %v, with %v (want %v); %+v", r.Case, r.ServedWithout, r.ServedWith, w, r)
		}
		if revised := r.Case != "classify-down"; r.Revised != revised {
			t.Errorf("%s: revised %v", r.Case, r.Revised)
		}
	}
	if len(rs) != 3 || stages[string(pipeline.StageRevision)] != 2 {
		t.Fatalf("%d results, %d revision calls", len(rs), stages[string(pipeline.StageRevision)])
	}
	sum := eval.SummarizeFailures("ctl", suite.Name, 3, 1, rs)
	if sum.ServedWithout != (eval.Rate{Hits: 1, Of: 3}) || sum.ServedWith != (eval.Rate{Hits: 2, Of: 3}) || sum.Empty != (eval.Rate{Hits: 1, Of: 2}) {
		t.Fatalf("summary = %+v", sum)
	}
	var b bytes.Buffer
	if err := eval.WriteFailures(&b, []eval.FailureSummary{sum}); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	for _, row := range []string{"served without revision 33%", "served with revision 67%", "gained by revision +33 pt",
		"revision added nothing 50%", "video-down 0→1/1", "classify-down 1→1/1", "speech-down 0→0/1"} {
		if !slices.Contains(rows, row) {
			t.Errorf("table lacks the row %q:\n%s", row, b.String())
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("line over 80 columns: %q", l)
		}
	}
}

package pipeline_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// TestVocabularyIsTheStages: the engine's names for the vocabulary that
// front ends use (vocabulary.go) say exactly what the stages' do — one
// concept, one meaning, whichever package a caller imports.
func TestVocabularyIsTheStages(t *testing.T) {
	t.Parallel()
	both := func(name string, engine, stage any) {
		t.Helper()
		if !reflect.DeepEqual(engine, stage) {
			t.Errorf("%s: the engine's says %#v, the stage's %#v", name, engine, stage)
		}
	}
	for _, v := range []string{"<resource>-2 and <resource>-10", "no reference", "<resource>-x"} {
		both("Refs "+v, pipeline.Refs(v), flow.Refs(v))
	}
	both("RefString", pipeline.RefString(3), flow.RefString(3))
	for _, s := range []string{"license=mit,max_size=1B", "prefer=best=wer", "nonsense=1", ""} {
		c1, e1 := pipeline.ParseConstraints(s)
		c2, e2 := flow.ParseConstraints(s)
		both("ParseConstraints "+s, []any{c1, fmt.Sprint(e1)}, []any{c2, fmt.Sprint(e2)})
	}
	for _, p := range [][2]string{{"best=wer:common_voice", ""}, {"smallest", ""}, {"best", ""}, {"fastest", ""}} {
		a, b, err := pipeline.ParsePrefer(p[0], p[1])
		c, d, err2 := flow.ParsePrefer(p[0], p[1])
		both("ParsePrefer "+p[0], []any{a, b, fmt.Sprint(err)}, []any{c, d, fmt.Sprint(err2)})
	}
	for _, q := range []pipeline.QueueEvent{{}, {Waiting: true}, {Waiting: true, Ahead: 2}} {
		both("QueueText", pipeline.QueueText(q), flow.QueueText(q))
	}
	down := pipeline.HostDownEvent{ID: 1, Host: "http://127.0.0.1:8080", Endpoint: "local", Reason: "connection refused"}
	both("HostDownText", pipeline.HostDownText(down), flow.HostDownText(down))
	both("Where", pipeline.Where("huggingface", "fal-ai"), flow.Where("huggingface", "fal-ai"))
	failed := pipeline.Attempt{Model: "org/a", Endpoint: "huggingface", Error: "503"}
	next := pipeline.Attempt{Model: "org/b", Endpoint: "local"}
	both("HopLine", pipeline.HopLine(failed, next), flow.HopLine(failed, next))
	both("FallbackNote", pipeline.FallbackNote([]pipeline.Attempt{failed, next}), flow.FallbackNote([]flow.Attempt{failed, next}))
	both("ShortModel", pipeline.ShortModel("stabilityai/stable-diffusion-xl-base-1.0"), flow.ShortModel("stabilityai/stable-diffusion-xl-base-1.0"))
	for _, p := range []string{"/a/b.png", "/a/b.wav", "/a/b.mp4", "/a/b"} {
		both("ModalityOf "+p, pipeline.ModalityOf(p), flow.ModalityOf(p))
	}
	both("PromptStage", pipeline.PromptStage("nothing"), flow.PromptStage("nothing"))
	m := skills.Model{ID: "x", Benchmarks: []skills.Benchmark{{Dataset: "common_voice", Metric: "wer", Value: 7.5, LowerIsBetter: true}}}
	s1, ok1 := pipeline.BenchmarkScore(m, "common_voice wer")
	s2, ok2 := flow.BenchmarkScore(m, "common_voice wer")
	both("BenchmarkScore", []any{s1, ok1}, []any{s2, ok2})
	a := pipeline.Approval{ID: 1, Task: "text-to-image", Tool: "fs.write_file", Reason: "it writes a file"}
	for _, names := range [][]string{{"fs.*"}, {"other.tool"}, nil} {
		e1 := pipeline.AllowTools(names)(context.Background(), a)
		e2 := execution.AllowTools(names)(context.Background(), a)
		both(fmt.Sprint("AllowTools ", names), fmt.Sprint(e1), fmt.Sprint(e2))
		fix := func(tool string) string { return "ask the operator to allow " + tool }
		l1 := pipeline.AllowListed(names, fix)(context.Background(), a)
		l2 := execution.AllowListed(names, fix)(context.Background(), a)
		both(fmt.Sprint("AllowListed ", names), fmt.Sprint(l1), fmt.Sprint(l2))
	}
}

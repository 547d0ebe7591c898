package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestBestWithoutBenchmarkSaysSo: best=cider:coco where no speech model
// records it does not pass the usual ranking off as the best: the model
// event, the report and the workflow section say the constraint was not
// applied and what selection did instead; a benchmark some candidates
// record leaves no such note.
func TestBestWithoutBenchmarkSaysSo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bench, unmet string
	}{
		{"cider coco", "no candidate reports cider:coco — fell back to downloads"},
		{"librispeech wer", ""},
	} {
		t.Run(tc.bench, func(t *testing.T) {
			r := newRig(t)
			r.serveASR()
			r.pick = func(*api.ChatRequest) fakeollama.Reply {
				return fakeollama.Reply{Content: `{"choices":[{"id":1,"model":"test/asr-base","reason":"most downloaded"}]}`}
			}
			wav := r.audio()
			r.plans = []fakeollama.Reply{{Content: `{"tasks":[{"task":"automatic-speech-recognition","id":1,"dep":[],"args":{"audio":"` + wav + `"}}]}`}}
			rep, err := r.run(context.Background(), pipeline.Turn{Request: "transcribe", Constraints: pipeline.Constraints{Prefer: pipeline.PreferBest, Benchmark: tc.bench}})
			if err != nil {
				t.Fatal(err)
			}
			m := r.model(1)
			if m.Unmet != tc.unmet || rep.Tasks[0].Unmet != tc.unmet {
				t.Fatalf("unmet: event %q, report %q; want %q", m.Unmet, rep.Tasks[0].Unmet, tc.unmet)
			}
			if m.Model == "" || rep.Tasks[0].Status != pipeline.StatusOK {
				t.Fatalf("the task should still run: %+v", rep.Tasks[0])
			}
			if got := strings.Contains(rep.Answer, "constraint not applied: "+tc.unmet); got != (tc.unmet != "") {
				t.Errorf("workflow mentions the unmet constraint = %v: %q", got, rep.Answer)
			}
		})
	}
}

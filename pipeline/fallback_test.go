package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

// A two-hop fallback: the curated default is served by neither of its
// providers (fal-ai 404, replicate 404), the next model's server fails, the
// third runs. Each failed hop is one line, the full errors are in --debug,
// and the report says which model ran and after what.
func TestTwoHopFallbackIsToldOnceAndBriefly(t *testing.T) {
	t.Parallel()
	r := newRig(t, withHub())
	r.hf.Provide("fal-ai", "test/clip-fancy", "fal-ai/clip-fancy", "text-to-video").Status(404, "Application 'clip-fancy' not found")
	r.hf.Provide("replicate", "test/clip-fancy", "owner/clip-fancy", "text-to-video").Status(404, "The requested resource could not be found.")
	r.hf.Model("test/clip-mid", "text-to-video").Status(500, "CUDA error: an illegal memory access was encountered")
	r.hf.Model("test/clip-plain", "text-to-video")
	r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox in the snow"}))
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "make a video of a fox in the snow"})
	if err != nil {
		t.Fatal(err)
	}
	end := r.taskEnd(1)
	if end.Status != pipeline.StatusOK || end.Model != "test/clip-plain" || len(end.Attempts) != 3 {
		t.Fatalf("task_end = %+v", end)
	}
	var hops []string
	for _, p := range eventsOf[pipeline.TaskProgressEvent](r) {
		if p.Fallback {
			hops = append(hops, p.Message)
		}
		if strings.Count(p.Message, "404") > 2 || len(p.Message) > 160 {
			t.Errorf("a progress line repeats the nested errors: %q", p.Message)
		}
	}
	want := []string{
		"clip-fancy: not served by fal-ai (404), replicate (404) → clip-mid",
		"clip-mid: hf-inference failed (500): ",
	}
	if len(hops) != 2 || hops[0] != want[0] || !strings.HasPrefix(hops[1], want[1]) || !strings.HasSuffix(hops[1], " → clip-plain") {
		t.Fatalf("hop lines =\n%s\nwant\n%s", strings.Join(hops, "\n"), strings.Join(want, "\n"))
	}
	// The full text of each failure is in --debug.
	var debug []string
	for _, d := range eventsOf[pipeline.DebugEvent](r) {
		if d.Kind == "fallback" {
			debug = append(debug, d.Content)
		}
	}
	if len(debug) != 2 || !strings.Contains(debug[0], "not found") || !strings.Contains(debug[0], "could not be found") || !strings.Contains(debug[1], "illegal memory access") {
		t.Fatalf("debug = %q, want the full errors of both hops", debug)
	}
	// The workflow names the model that ran, and says after what; the
	// selection's reason is the first choice's, and says so.
	for _, want := range []string{
		"`test/clip-plain` on huggingface (hf-inference)",
		"after `test/clip-fancy` failed: not served by fal-ai (404), replicate (404); `test/clip-mid` failed: hf-inference failed (500)",
		"`test/clip-fancy` was selected (",
	} {
		if !strings.Contains(rep.Answer, want) {
			t.Errorf("the workflow lacks %q:\n%s", want, rep.Answer)
		}
	}
	if strings.Contains(rep.Answer, "   - selected (") {
		t.Errorf("the workflow attributes the first choice's selection to the model that ran:\n%s", rep.Answer)
	}
	if got := pipeline.FallbackNote(end.Attempts); !strings.HasPrefix(got, "after clip-fancy failed: not served by fal-ai (404), replicate (404); clip-mid failed: hf-inference failed (500): ") {
		t.Errorf("FallbackNote = %q", got)
	}
}

package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// HuggingGPT's hybrid mode: models that run here come first. With a token,
// a request with no preference runs the local candidate, not the cloud's
// curated default, and the model event says why in the words the README
// uses ("hybrid: local first").
func TestHybridRanksLocalFirst(t *testing.T) {
	t.Parallel()
	local := &scriptedEndpoint{kind: skills.EndpointCommand, infer: func(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
		return endpoints.Result{Text: "a clip", Blobs: []endpoints.Blob{{MIME: "video/mp4", Data: fakehf.MP4("local")}}}, nil
	}}
	for _, mode := range []pipeline.Selection{pipeline.SelectAuto, pipeline.SelectRanked} {
		t.Run(string(mode), func(t *testing.T) {
			r := newRig(t, withEndpoints(local), withOptions(pipeline.Options{ControllerTasks: true, Selection: mode}))
			for _, id := range []string{"test/clip-fancy", "test/clip-mid", "test/clip-plain"} {
				r.hf.Model(id, "text-to-video")
			}
			r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "good morning"}))
			if _, err := r.run(context.Background(), pipeline.Turn{Request: "make a video saying good morning"}); err != nil {
				t.Fatal(err)
			}
			me := r.model(1)
			if me.Model != "test/clip-local" || me.Endpoint != "command" {
				t.Fatalf("hybrid picked %s on %s (%s: %s), want the local test/clip-local", me.Model, me.Endpoint, me.Decided, me.Reason)
			}
			if r.calls("select") != 0 || !strings.Contains(me.Reason, "hybrid: local first") {
				t.Errorf("decided %q: %q — want the ranking to decide, saying hybrid puts local models first", me.Decided, me.Reason)
			}
			if me.Candidates[0].ID != "test/clip-local" || me.Candidates[1].ID != "test/clip-fancy" {
				t.Errorf("candidates %+v: want the local one, then the cloud ranking (curated default first)", me.Candidates)
			}
			if end := r.taskEnd(1); end.Status != pipeline.StatusOK || end.Endpoint != "command" {
				t.Errorf("task_end = %+v", end)
			}
		})
	}
}

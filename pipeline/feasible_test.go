package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline"
)

func withMode(m endpoints.Mode) rigOption { return func(rc *rigConfig) { rc.mode = m } }

// TestUnqualifiable: constraints that, with the inference mode, leave no
// model for any task are named once, where they are set — and once in a
// turn — instead of in every task's list of exclusions.
func TestUnqualifiable(t *testing.T) {
	t.Parallel()
	hf := newRig(t, withMode(endpoints.ModeHuggingFace))
	if why := hf.eng.Unqualifiable(pipeline.Constraints{LocalOnly: true}); !strings.Contains(why, "local-only with inference_mode huggingface") || !strings.Contains(why, "--mode") {
		t.Fatalf("local-only in huggingface mode: %q", why)
	}
	hybrid := newRig(t)
	for _, tc := range []struct {
		cons pipeline.Constraints
		none bool
	}{
		{pipeline.Constraints{}, false},
		{pipeline.Constraints{Licenses: []string{"mit"}}, false},
		{pipeline.Constraints{Licenses: []string{"gpl-3.0"}}, true},
		{pipeline.Constraints{Licenses: []string{"gpl-3.0"}, Tasks: []string{"image-classification"}}, false},
		{pipeline.Constraints{LocalOnly: true}, true}, // the test catalog's models are all on Hugging Face
	} {
		why := hybrid.eng.Unqualifiable(tc.cons)
		if (why != "") != tc.none || (tc.none && !strings.Contains(why, tc.cons.String())) {
			t.Errorf("Unqualifiable(%s) = %q, want a reason: %v", tc.cons, why, tc.none)
		}
	}

	// In a turn: one selection warning, and each task's own reason short.
	r := newRig(t)
	r.serveASR()
	wav := r.audio()
	r.planJSON(task(1, "automatic-speech-recognition", nil, map[string]string{"audio": wav}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "transcribe " + wav, Constraints: pipeline.Constraints{Licenses: []string{"gpl-3.0"}}}); err != nil {
		t.Fatal(err)
	}
	var warnings int
	for _, e := range eventsOf[pipeline.ErrorEvent](r) {
		if e.Stage == pipeline.StageSelection {
			warnings++
		}
	}
	if warnings != 1 {
		t.Fatalf("%d selection warnings, want the one naming the constraints", warnings)
	}
	m := r.model(1)
	if len(m.Reason) > 260 || !strings.Contains(m.Reason, "4 models excluded") || len(m.Excluded) != 4 {
		t.Fatalf("the task's reason is long or lacks the count (the event keeps the list): %q (%d excluded)", m.Reason, len(m.Excluded))
	}
}

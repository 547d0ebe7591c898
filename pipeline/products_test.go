package pipeline_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

// Grounding → SAM → mask-overlay, as "cut out the cat and show me the mask
// on the photo" plans it: the overlay's mask=<resource>-2 must be SAM's mask,
// not the annotated preview Chorus draws of it (which is the whole picture,
// tinted: "covers 100.0 % of the image").
func TestMaskArgumentTakesTheMaskNotThePreview(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("cat.png", 40, 30)
	r.hf.Model("test/detector", "object-detection")
	r.hf.Model("test/sam", "mask-generation")
	r.planJSON(
		task(1, "object-detection", nil, map[string]string{"image": img}),
		task(2, "mask-generation", []int{1}, map[string]string{"image": img, "box": "<resource>-1"}),
		task(3, "mask-overlay", []int{2}, map[string]string{"image": img, "mask": "<resource>-2", "text": "cat"}),
	)
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "cut out the cat and show me the mask on " + img}); err != nil {
		t.Fatal(err)
	}
	sam := r.taskEnd(2)
	if sam.Status != pipeline.StatusOK || len(sam.Files) < 2 {
		t.Fatalf("mask-generation = %+v, want a mask and its annotated preview", sam)
	}
	overlay := r.taskEnd(3)
	if overlay.Status != pipeline.StatusOK {
		t.Fatalf("mask-overlay = %+v", overlay)
	}
	// The detector's best box is the left half (0,0)-(20,30): SAM's mask
	// fills it, so the overlay covers half of the picture.
	if !strings.Contains(overlay.Result, "covers 50.0%") {
		t.Fatalf("mask-overlay used the wrong file of task 2: %q", overlay.Result)
	}
	// --debug says which of task 2's files the argument took, and why.
	var said string
	for _, d := range eventsOf[pipeline.DebugEvent](r) {
		if d.Kind == "resolve" && strings.Contains(d.Content, "task 3") {
			said = d.Content
		}
	}
	if said == "" {
		t.Fatal("no debug event says which file <resource>-2 resolved to")
	}
	for _, want := range []string{"mask", "<resource>-2", "annotated"} {
		if !strings.Contains(said, want) {
			t.Fatalf("the debug note %q does not say %q", said, want)
		}
	}
	var maskFile string
	for _, f := range sam.Files {
		if !strings.Contains(filepath.Base(f), "annotated") {
			maskFile = f
		}
	}
	if !strings.Contains(said, maskFile) {
		t.Fatalf("the debug note %q does not name the mask %s", said, maskFile)
	}
}

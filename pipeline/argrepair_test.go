package pipeline_test

import (
	"context"
	"image"
	_ "image/png"
	"os"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

// TestResizeWithWidthAndHeightRuns is the report's plan: image-resize
// {width: "32", height: "32"} used to drop its task ("needs the argument
// text"); now the built-in resizer makes a 32×32 image of it.
func TestResizeWithWidthAndHeightRuns(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("big.png", 64, 48)
	r.plans = nil
	r.planJSON(map[string]any{"task": "image-resize", "id": 1, "dep": []int{}, "args": map[string]any{"image": img, "width": "32", "height": 32}})
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "make it 32 by 32"})
	if err != nil {
		t.Fatal(err)
	}
	end := r.taskEnd(1)
	if end.Status != pipeline.StatusOK || len(end.Files) != 1 {
		t.Fatalf("task_end = %+v; notes %q", end, rep.Notes)
	}
	f, err := os.Open(end.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	if err != nil || cfg.Width != 32 || cfg.Height != 32 {
		t.Fatalf("resized to %dx%d (%v), want 32x32", cfg.Width, cfg.Height, err)
	}
}

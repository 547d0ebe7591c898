package execution

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
)

// TestAnnotateHuggingFaceResults checks that detection and segmentation
// results of the Hugging Face endpoint are in the shape annotate draws
// from, so HuggingGPT-style annotated images work for Hugging Face answers.
func TestAnnotateHuggingFaceResults(t *testing.T) {
	srv := fakehf.New(t)
	img := filepath.Join(t.TempDir(), "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(40, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	ep := huggingface.New(huggingface.Options{BaseURL: srv.URL, Token: "hf_test", HTTPClient: srv.Client()})
	for _, task := range []string{"object-detection", "image-segmentation", "zero-shot-object-detection"} {
		srv.Model("m/"+task, task)
		res, err := ep.Infer(t.Context(), endpointstest.Request(t, task, "m/"+task, map[string]string{"image": img, "labels": "cat"}))
		if err != nil {
			t.Fatalf("%s: %v", task, err)
		}
		blob, ok, err := annotate(task, img, res)
		if err != nil || !ok {
			t.Fatalf("%s: annotate = %v, %v", task, ok, err)
		}
		if w, h, err := fakehf.ImageSize(blob.Data); err != nil || w != 40 || h != 30 {
			t.Errorf("%s: the annotated image is %dx%d (%v), want 40x30", task, w, h, err)
		}
	}
}

package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/pipeline"
)

// TestSpooledResultIsMovedIntoOutputDir: a large answer the endpoint
// streamed to a temporary file (endpoints.Blob.Path) becomes the task's
// output file, whole, with the extension of its type, and no temporary
// file is left.
func TestSpooledResultIsMovedIntoOutputDir(t *testing.T) {
	t.Parallel()
	const size = 6 << 20
	tmp := t.TempDir()
	r := newRig(t, withHFOptions(func(o *huggingface.Options) { o.TempDir = tmp }))
	r.hf.Model("test/voice", "text-to-speech").LargeBody("audio/wav", size, false)
	r.planJSON(task(1, "text-to-speech", nil, map[string]string{"text": "hello"}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "say hello"}); err != nil {
		t.Fatal(err)
	}
	end := r.taskEnd(1)
	if end.Status != pipeline.StatusOK || len(end.Files) != 1 {
		t.Fatalf("task_end = %+v", end)
	}
	p := end.Files[0]
	st, err := os.Stat(p)
	if err != nil || st.Size() != size || filepath.Dir(p) != r.out || !strings.HasSuffix(p, ".wav") {
		t.Fatalf("output %s: %v, %d bytes; want a %d-byte .wav in %s", p, err, st.Size(), size, r.out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

package ollama

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/testkit"
)

// TestOllamaImageRefusesPipes: an image argument that names a FIFO is
// refused without opening it (opening one waits for a writer forever).
func TestOllamaImageRefusesPipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.png")
	if err := testkit.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	ollama := New(Options{})
	done := make(chan error, 1)
	f := endpointstest.Request(t, "image-to-text", "llava", map[string]string{"image": fifo}).Files["image"]
	if f.IsZero() {
		t.Fatal("the FIFO was not granted")
	}
	go func() { _, err := ollama.readImage(f, fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, endpoints.ErrBadInput) {
			t.Errorf("err = %v, want ErrBadInput", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}

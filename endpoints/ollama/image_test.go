package ollama

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
)

// TestOllamaImageRefusesPipes: an image argument that names a FIFO is
// refused without opening it (opening one waits for a writer forever).
func TestOllamaImageRefusesPipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	ollama := New(Options{})
	done := make(chan error, 1)
	go func() { _, err := ollama.readImage(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, endpoints.ErrBadInput) {
			t.Errorf("err = %v, want ErrBadInput", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}

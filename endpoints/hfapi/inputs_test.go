package hfapi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/testkit"
)

// TestMediaInputsRefusePipesAndHugeFiles: a media argument that names a
// FIFO is refused without opening it (opening one waits for a writer
// forever), and a file too large to hold without reading it.
func TestMediaInputsRefusePipesAndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.png")
	if err := testkit.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	huge := filepath.Join(dir, "huge.wav")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk is used, and a reader that honours the bound never
	// reads it.
	if err := f.Truncate(maxUpload + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()

	readers := map[string]func() error{
		"pipe": func() error {
			_, _, err := readMedia(endpointstest.Request(t, "image-classification", "m", map[string]string{"image": fifo}), "image")
			return err
		},
		"huge": func() error {
			_, _, err := readMedia(endpointstest.Request(t, "automatic-speech-recognition", "m", map[string]string{"audio": huge}), "audio")
			if err != nil && !strings.Contains(err.Error(), "at most 512 MB") {
				t.Errorf("huge file: the error does not give the limit: %v", err)
			}
			return err
		},
	}
	for name, read := range readers {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			if !errors.Is(err, endpoints.ErrBadInput) {
				t.Errorf("%s: err = %v, want ErrBadInput", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: blocked on a FIFO", name)
		}
	}
}

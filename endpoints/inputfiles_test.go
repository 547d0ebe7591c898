package endpoints

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMediaInputsRefusePipesAndHugeFiles: every reader of a media argument
// refuses a FIFO without opening it (opening one waits for a writer
// forever) and a file too large to hold, without reading it.
func TestMediaInputsRefusePipesAndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	huge := filepath.Join(dir, "huge.wav")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk is used, and a reader that honours the bound never
	// reads it.
	if err := f.Truncate(hfMaxUpload + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()

	ollama := NewOllama(nil, OllamaOptions{})
	readers := map[string]func() error{
		"hf media (pipe)": func() error {
			_, _, err := hfMedia("image-classification", map[string]string{"image": fifo}, "image")
			return err
		},
		"hf media (huge)": func() error {
			_, _, err := hfMedia("automatic-speech-recognition", map[string]string{"audio": huge}, "audio")
			if err != nil && !strings.Contains(err.Error(), "at most 512 MB") {
				t.Errorf("huge file: the error does not give the limit: %v", err)
			}
			return err
		},
		"ollama vision": func() error { _, err := ollama.readImage(fifo); return err },
	}
	for name, read := range readers {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("%s: err = %v, want ErrBadInput", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: blocked on a FIFO", name)
		}
	}
}

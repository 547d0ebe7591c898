package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
)

// TestCommandRunsOnlyOnGivenFiles: a program is handed only the path of a
// checked file. An image or video named only in Args is refused before any
// program starts.
func TestCommandRunsOnlyOnGivenFiles(t *testing.T) {
	var started []string
	ep := New(Options{
		LookPath: func(name string) (string, error) { return "/bin/true", nil },
		Started:  func(program string, _ int) { started = append(started, program) },
	})
	for _, c := range []struct{ task, model, arg, path string }{
		{"ocr", "tesseract", "image", "/etc/passwd"},
		{"ocr", "tesseract", "image", "~/.ssh/id_rsa"},
		{"video-to-audio", "ffmpeg", "video", "../../.ssh/id_rsa"},
	} {
		_, err := ep.Infer(context.Background(), endpoints.Request{Task: c.task, Model: c.model, Args: map[string]string{c.arg: c.path}})
		if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s %s: err = %v, want a refusal naming it", c.model, c.path, err)
		}
	}
	if len(started) != 0 {
		t.Errorf("programs started for refused files: %v", started)
	}
}

// TestCommandOutputStaysInScratchDir: a program's output is read only
// from its scratch directory; a link left in the output's place, to a
// file outside it, is refused rather than read.
func TestCommandOutputStaysInScratchDir(t *testing.T) {
	ep := New(Options{})
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ocr.txt")
	if err := os.Symlink(secret, out); err != nil {
		t.Fatal(err)
	}
	c := &call{prog: ep.programs[0], dir: dir}
	data, err := ep.readOutput(c, out)
	if err == nil || !errors.Is(err, scope.ErrDenied) || strings.Contains(err.Error(), "PRIVATE KEY") || len(data) != 0 {
		t.Fatalf("readOutput through a link out of the scratch dir = %q, %v; want a refusal", data, err)
	}
	os.Remove(out)
	if err := os.WriteFile(out, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ep.readOutput(c, out); err != nil || string(data) != "hello" {
		t.Fatalf("readOutput = %q, %v", data, err)
	}
}

package endpoints_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
)

// TestRequestFile: a media argument is a file only when the executor
// handed it over checked; a path only in Args is refused, naming the
// argument and how to allow it, and a missing argument is asked for.
func TestRequestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cat.png")
	if err := os.WriteFile(p, []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := scope.New(scope.Options{WorkDir: dir})
	s.AllowFile(p, scope.Attached)
	f, err := s.Check(p)
	if err != nil {
		t.Fatal(err)
	}
	req := endpoints.Request{Args: map[string]string{"image": p, "audio": "~/.ssh/id_rsa"}, Files: map[string]scope.File{"image": f}}
	if got, err := req.File("image", "the image"); err != nil || got.Path() != f.Path() {
		t.Errorf("File(image) = %v, %v", got.Path(), err)
	}
	_, err = req.File("audio", "the sound")
	if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) || endpoints.Retryable(err) {
		t.Fatalf("File(audio) = %v, want a refusal", err)
	}
	for _, want := range []string{"bad input: argument audio (~/.ssh/id_rsa) was not given as a file this turn may read", "@~/.ssh/id_rsa", "--attach"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}
	if _, err := req.File("video", "the video to cut"); !errors.Is(err, endpoints.ErrBadInput) || errors.Is(err, scope.ErrDenied) || !strings.Contains(err.Error(), `missing argument "video" (the video to cut)`) {
		t.Errorf("File(video) = %v, want the missing argument asked for", err)
	}
}

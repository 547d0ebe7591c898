package scope

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRootConfines: a scope with a Root allows nothing outside it, even a
// path the user typed or attached, and resolves "~" and relative paths
// from it — a remote user cannot read the server's other files.
func TestRootConfines(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "alice")
	for _, f := range []string{"alice/notes.txt", "alice/out/pic.png", "bob/secret.txt"} {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../bob/secret.txt", filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Root: ws})
	s.AllowTyped("summarize notes.txt and ~/out/pic.png and " + filepath.Join(base, "bob/secret.txt") + " and link.txt")
	s.AllowFile(filepath.Join(base, "bob/secret.txt"), Attached)
	s.AllowDir(filepath.Join(ws, "out"), Output)

	for _, p := range []string{"notes.txt", "~/notes.txt", filepath.Join(ws, "notes.txt"), "out/pic.png"} {
		if _, err := s.Check(p); err != nil {
			t.Errorf("%s inside the workspace: %v", p, err)
		}
	}
	for _, p := range []string{filepath.Join(base, "bob/secret.txt"), "../bob/secret.txt", "link.txt"} {
		var de *DeniedError
		if _, err := s.Check(p); !errors.As(err, &de) {
			t.Errorf("%s outside the workspace: %v", p, err)
		}
	}
}

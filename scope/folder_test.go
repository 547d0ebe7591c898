package scope

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFolderGrant (issue 27, 2): a folder the user typed (written as a
// path) or attached grants the folder — a listing — and what lies under it,
// all the way down, but its hidden entries and anything a link inside it
// leads to outside it; the file system's root is never a folder grant, and
// a bare word naming a folder grants nothing.
func TestFolderGrant(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, f := range []string{"photos/cat.png", "photos/2024/dog.png", "photos/.env", "photos/.git/config", "docs/readme.txt", ".ssh/id_rsa", "other/x.txt"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../.ssh/id_rsa", filepath.Join(home, "photos/key.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("2024/dog.png", filepath.Join(home, "photos/best.png")); err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"typed", "attached"} {
		t.Run(how, func(t *testing.T) {
			s := New(Options{Home: home, WorkDir: home})
			if how == "typed" {
				s.AllowTyped("list ~/photos/ and tell me about the docs")
			} else if err := s.Allow(filepath.Join(home, "photos"), Attached); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"photos", "photos/cat.png", "photos/2024", "photos/2024/dog.png", "photos/best.png"} {
				if err := s.Gate(filepath.Join(home, p)); err != nil {
					t.Errorf("%s is inside the folder: %v", p, err)
				}
			}
			for _, p := range []string{"photos/.env", "photos/.git/config", "photos/.git", "photos/key.png", "docs", "docs/readme.txt", "other/x.txt", ".ssh/id_rsa", "."} {
				if err := s.Gate(filepath.Join(home, p)); !errors.Is(err, ErrDenied) {
					t.Errorf("%s: %v, want a refusal", p, err)
				}
			}
		})
	}
	s := New(Options{Home: home, WorkDir: home})
	if err := s.AllowFolder("/", Attached); !errors.Is(err, ErrBroadFolder) {
		t.Errorf("the root as a folder: %v", err)
	}
	s.AllowTyped("a / b, and ./ or ../ in a sentence")
	if s.Gate("/etc/passwd") == nil || s.Gate(filepath.Join(home, "docs/readme.txt")) == nil {
		t.Error("punctuation granted a folder")
	}
	if err := s.Allow(filepath.Join(home, "other/x.txt"), Attached); err != nil || s.Gate(filepath.Join(home, "other/x.txt")) != nil || s.Gate(filepath.Join(home, "other")) == nil {
		t.Errorf("an attached file grants itself, not its folder")
	}
}

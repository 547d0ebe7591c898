package scope

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootRevealsNothingOutside (issue 17, 6): a scope confined to a
// folder answers the same for a file outside it that exists and one that
// does not — refused, naming the folder — having looked at neither.
func TestRootRevealsNothingOutside(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Root: root})
	var msgs []string
	for _, p := range []string{outside, filepath.Join(filepath.Dir(outside), "nonexistent"), "../../etc/passwd"} {
		_, err := s.Check(p)
		var de *DeniedError
		if !errors.As(err, &de) {
			t.Fatalf("%s: %v, want a refusal", p, err)
		}
		msgs = append(msgs, strings.ReplaceAll(err.Error(), p, "PATH"))
	}
	if msgs[0] != msgs[1] {
		t.Errorf("refused differently:\n%s\n%s", msgs[0], msgs[1])
	}
	if !strings.Contains(msgs[0], root) || strings.Contains(msgs[0], "@") {
		t.Errorf("the refusal should name the folder and not suggest @path: %s", msgs[0])
	}
}

package flow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chorusai/chorus/scope"
)

// TestTextFileReadsWhatTheScopeJudged: a text argument that is a relative
// path is told a text file, and read, from the turn's working folder — the
// folder the scope judged it from (over ssh, the user's) — never from the
// process's: the words a task gets are those of the file the gate passed.
func TestTextFileReadsWhatTheScopeJudged(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	notes := filepath.Join(work, "notes") // no extension: told by its first bytes
	if err := os.WriteFile(notes, []byte("the turn's own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := scope.New(scope.Options{WorkDir: work, Home: t.TempDir(), Outputs: t.TempDir()})
	if err := sc.Allow(notes, scope.Attached); err != nil {
		t.Fatal(err)
	}
	got, isFile, err := TextFile(sc, "notes")
	if err != nil || !isFile || got != "the turn's own notes\n" {
		t.Fatalf("TextFile(notes) = %q, %v, %v; want the words of %s", got, isFile, err, notes)
	}
	// A file the turn may not read is text, and nothing of it is told.
	secret := filepath.Join(work, "secret")
	if err := os.WriteFile(secret, []byte("hidden"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, isFile, err := TextFile(sc, "secret"); err != nil || isFile || got != "" {
		t.Fatalf("TextFile(secret) = %q, %v, %v; want no file", got, isFile, err)
	}
}

package testkit

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// GoFiles is every Go file under root, tests included, as slash paths
// from root, passing over testdata and hidden folders (.git, .ci): the
// tests that read Chorus's own source — its import map, its file and
// function sizes, the process state its tests set, the engine's turn
// state — walk the same tree.
func GoFiles(t testing.TB, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			files = append(files, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

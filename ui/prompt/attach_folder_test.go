package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttachAFolder (issue 27, 2): @folder attaches the folder — a grant
// of its paths to the tools that take one — instead of refusing it with a
// fix that cannot be followed; the file system's root is refused.
func TestAttachAFolder(t *testing.T) {
	dir := t.TempDir()
	photos := filepath.Join(dir, "photos")
	if err := os.Mkdir(photos, 0o700); err != nil {
		t.Fatal(err)
	}
	text, files, err := ResolveAttachmentsIn("list @"+photos+"/ please", ExpandPath, nil)
	if err != nil || len(files) != 1 || files[0] != photos || !strings.Contains(text, photos) {
		t.Fatalf("ResolveAttachmentsIn = %q, %v, %v", text, files, err)
	}
	if _, _, err := ResolveAttachmentsIn("list @/ please", ExpandPath, nil); err == nil || !strings.Contains(err.Error(), "root") {
		t.Fatalf("the root: %v", err)
	}
}

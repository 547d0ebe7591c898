package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestComposeRunsTheEditor: the editor gets the prompt in a file and what
// it saves comes back, without the newline editors add at the end.
func TestComposeRunsTheEditor(t *testing.T) {
	script := filepath.Join(t.TempDir(), "ed")
	// An "editor" that appends a line to the file it is given.
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '\\nsecond line\\n' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &composer{editor: []string{script}, text: "first line"}
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	if c.text != "first line\nsecond line" {
		t.Fatalf("text = %q", c.text)
	}
	c = &composer{editor: []string{"no-such-editor-here"}, text: "x"}
	if err := c.Run(); err == nil || !strings.Contains(err.Error(), "set $EDITOR") {
		t.Fatalf("a missing editor: %v", err)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrackedNote: rendering over a GIF git tracks (docs/demo.gif, the
// README's) says so and how to undo it; any other output says nothing.
func TestTrackedNote(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if _, err := exec.Command("git", "-C", "../../..", "rev-parse").Output(); err != nil {
		t.Skip("not in a git checkout")
	}
	note := trackedNote("../../../docs/demo.gif")
	if !strings.Contains(note, "which git tracks") || !strings.Contains(note, "git checkout -- ../../../docs/demo.gif") {
		t.Errorf("over docs/demo.gif: %q", note)
	}
	other := filepath.Join(t.TempDir(), "demo.gif")
	if err := os.WriteFile(other, []byte("GIF89a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if note := trackedNote(other); note != "" {
		t.Errorf("over an untracked file: %q", note)
	}
}

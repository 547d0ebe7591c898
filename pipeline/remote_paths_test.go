package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

// TestConfinedTurnRevealsNothingOutside (issue 17, 6): in a turn confined
// to a user's folder (over ssh), a plan naming a server file outside it
// gets the same note whether the file exists or not, naming the folder
// rather than suggesting @path.
func TestConfinedTurnRevealsNothingOutside(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	outside := filepath.Join(t.TempDir(), "shadow.png")
	if err := os.WriteFile(outside, []byte("\x89PNG\r\n\x1a\nsecret"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(filepath.Dir(outside), "nonexistent.png")
	var notes []string
	for _, p := range []string{outside, missing} {
		r := newRig(t)
		r.hf.Model("test/captioner-big", "image-to-text")
		r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": p}))
		if _, err := r.run(context.Background(), pipeline.Turn{Request: "caption it", Workspace: ws}); err != nil {
			t.Fatal(err)
		}
		plan := eventsOf[pipeline.PlanEvent](r)[0]
		notes = append(notes, strings.ReplaceAll(strings.Join(plan.Notes, " "), p, "PATH"))
	}
	if notes[0] != notes[1] {
		t.Errorf("an existing and a missing server file get different notes:\n%s\n%s", notes[0], notes[1])
	}
	if !strings.Contains(notes[0], "outside your folder on this server ("+ws) || strings.Contains(notes[0], "@path") {
		t.Errorf("the note should name the folder, not @path: %s", notes[0])
	}
}

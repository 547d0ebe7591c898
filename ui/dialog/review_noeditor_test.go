package dialog

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/theme"
)

// TestReviewWithoutExternalEditor: a review given no editor (a chat served
// over ssh) starts no program for "e" — it says to edit inline — and "i"
// still edits.
func TestReviewWithoutExternalEditor(t *testing.T) {
	st := theme.NewStyles()
	plan := pipeline.Plan{Tasks: []pipeline.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "a.png"}}}}
	d := NewReview(theme.DefaultKeyMap(), &st, plan, nil, func() time.Time { return time.Time{} })
	if act, cmd := d.Update(letter('e')); act != nil || cmd != nil {
		t.Fatalf("e without an editor: %v %v", act, cmd)
	}
	_, lines, _ := d.View(60, 10)
	if !strings.Contains(ansi.Strip(strings.Join(lines, "\n")), "i edits the plan inline") {
		t.Fatalf("no word on the missing editor:\n%s", strings.Join(lines, "\n"))
	}
	d.Update(letter('i'))
	if title, _, _ := d.View(60, 10); !strings.Contains(title, "Edit the plan") {
		t.Fatalf("i does not edit inline: %q", title)
	}
}

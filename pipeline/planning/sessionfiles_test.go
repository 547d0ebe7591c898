package planning

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
)

// A chat log read from a session names files the turn may not read: the
// planner neither opens them (not even their first bytes, to tell what
// they hold) nor counts them among the turn's files.

func TestSessionOnlyFileIsNotCounted(t *testing.T) {
	t.Parallel()
	e := testPlanner(t)
	given1 := touch(t, t.TempDir(), "cat.png")
	// Newer, from the session only, and named without an extension: what
	// it holds could be told only by reading it.
	session := filepath.Join(t.TempDir(), "photo")
	if err := os.WriteFile(session, []byte("\x89PNG\r\n\x1a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := []flow.Message{
		{Role: "assistant", Content: "here is your cat", Resources: []string{given1}},
		{Role: "assistant", Content: "and a photo", Resources: []string{session}},
	}
	tu := turn{History: h, Earlier: []given{{Request: "a cat", Attachments: []string{given1}}}}
	p := e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{}}}, flow.Constraints{}, tu, nil)
	if len(p.Tasks) != 1 || p.Tasks[0].Args["image"] != given1 {
		t.Fatalf("plan = %+v", p)
	}
	// The one image the turn may read: filling it in is no repair.
	if len(p.Notes) != 0 {
		t.Fatalf("a session-only file was counted among the turn's images: notes %q", p.Notes)
	}
	if got := e.planner(tu).resources("image"); len(got) != 1 || got[0] != given1 {
		t.Fatalf("resources = %q, want only %s", got, given1)
	}
}

func TestControllerImagesSkipSessionOnlyFiles(t *testing.T) {
	t.Parallel()
	e := testPlanner(t)
	dir := t.TempDir()
	var gave []given
	var h []flow.Message
	var want [][]byte
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("given%d.png", i))
		b := fmt.Appendf([]byte("\x89PNG\r\n\x1a\n"), "%d", i)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		gave = append(gave, given{Attachments: []string{p}})
		h = append(h, flow.Message{Role: "assistant", Content: "an image", Resources: []string{p}})
		want = append([][]byte{b}, want...) // newest first
	}
	// The newest image of the log, from the session only: it takes none
	// of the four places.
	session := touch(t, t.TempDir(), "session.png")
	h = append(h, flow.Message{Role: "assistant", Content: "another", Resources: []string{session}})
	got := e.planner(turn{History: h, Earlier: gave}).images()
	if len(got) != len(want) {
		t.Fatalf("the controller sees %d images, want the %d the turn may read", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("image %d = %q, want %q", i, got[i], want[i])
		}
	}
}

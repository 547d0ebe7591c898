package sessions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

func TestHistory(t *testing.T) {
	t.Parallel()
	s := &Session{}
	s.AddTurn(Record{
		Request:     "make a picture of a red fox",
		Answer:      "Here is your fox: /out/fox-1.png",
		Report:      &pipeline.Report{Files: []string{"/out/fox-1.png"}},
		Attachments: nil,
	})
	s.AddTurn(Record{
		Request:     "what is in this photo?",
		Attachments: []string{"/home/u/photo.jpg"},
		Answer:      "A bicycle.",
	})
	s.AddTurn(Record{Request: "now animate the fox", Cancelled: true})
	s.AddTurn(Record{Request: "caption it", Error: "Ollama is not reachable at http://127.0.0.1:11434 — start it with `ollama serve`"})
	s.AddTurn(Record{Request: "plan only please", Plan: []pipeline.Task{{ID: 1, Task: "text-to-image"}, {ID: 2, Task: "image-to-text"}}})
	// A turn cancelled after producing a file still offers the file.
	s.AddTurn(Record{Request: "draw boxes on the photo", Attachments: []string{"/home/u/photo.jpg"},
		Resources: []string{"/home/u/photo.jpg", "/out/boxes-1.png"}, Cancelled: true})
	s.AddTurn(Record{Request: "hello?"}) // nothing came of it at all

	want := []pipeline.Message{
		{Role: "user", Content: "make a picture of a red fox"},
		{Role: "assistant", Content: "Here is your fox: /out/fox-1.png", Resources: []string{"/out/fox-1.png"}},
		{Role: "user", Content: "what is in this photo?", Resources: []string{"/home/u/photo.jpg"}},
		{Role: "assistant", Content: "A bicycle."},
		{Role: "user", Content: "now animate the fox"},
		{Role: "assistant", Content: "(cancelled by the user before an answer)"},
		{Role: "user", Content: "caption it"},
		{Role: "assistant", Content: "(failed: Ollama is not reachable at http://127.0.0.1:11434 — start it with `ollama serve`)"},
		{Role: "user", Content: "plan only please"},
		{Role: "assistant", Content: "(planned, not run: text-to-image, image-to-text)"},
		{Role: "user", Content: "draw boxes on the photo", Resources: []string{"/home/u/photo.jpg"}},
		{Role: "assistant", Content: "(cancelled by the user before an answer)", Resources: []string{"/out/boxes-1.png"}},
		{Role: "user", Content: "hello?"},
	}
	got := s.History()
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Role != want[i].Role || got[i].Content != want[i].Content || !reflect.DeepEqual(nilIfEmpty(got[i].Resources), want[i].Resources) {
			t.Errorf("message %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s.Title != "make a picture of a red fox" {
		t.Errorf("title %q", s.Title)
	}
	// History must not alias the session: editing it leaves the turns alone.
	got[2].Resources[0] = "/tampered"
	if s.Turns[1].Attachments[0] != "/home/u/photo.jpg" {
		t.Errorf("History shares slices with the session")
	}
	if (*Session)(nil).History() != nil {
		t.Errorf("nil session has history")
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestHistoryAfterReopen is the point of saving resources: a reopened
// session still tells the planner where the earlier image is.
func TestHistoryAfterReopen(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("")
	s.AddTurn(Record{Request: "make a picture of a red fox", Answer: "done",
		Report: &pipeline.Report{Files: []string{"/out/fox-1.png"}}})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	back, err := st.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	h := back.History()
	if len(h) != 2 || !reflect.DeepEqual(h[1].Resources, []string{"/out/fox-1.png"}) {
		t.Fatalf("reopened history %+v lost the generated image", h)
	}
	if !strings.Contains(h[0].Content, "red fox") {
		t.Errorf("reopened history %+v lost the request", h)
	}
}

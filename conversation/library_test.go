package conversation_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/sessions"
)

// TestLibraryFind: what a user types names a session by its id, "latest",
// its whole title (the newest of that title), the start of its id or
// title, or a word of its title; several matches are an AmbiguousError
// listing them newest first; nothing matching is ErrNotFound naming what
// was typed and the folder.
func TestLibraryFind(t *testing.T) {
	dir := t.TempDir()
	st := sessions.Store{Dir: dir}
	var ids []string
	for _, title := range []string{"Trip to Rome", "Trip plan", "Lighthouse drawing", "Trip plan"} {
		s := st.New(title)
		s.AddTurn(sessions.Record{Request: title, Answer: "yes"})
		if err := st.Save(s); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	lib := conversation.NewLibrary(dir, nil)
	for arg, want := range map[string]string{
		ids[2]:                 ids[2],
		"latest":               "latest",
		"trip plan":            ids[3], // the newest of that title
		"light":                ids[2],
		"TRIP TO":              ids[0],
		"drawing":              ids[2],
		ids[1][:len(ids[1])-3]: ids[1],
	} {
		if got, err := lib.Find(arg); err != nil || got != want {
			t.Errorf("Find(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
	_, err := lib.Find("trip")
	var amb *conversation.AmbiguousError
	if !errors.As(err, &amb) || len(amb.Matches) != 3 || amb.Matches[0].ID != ids[3] || amb.Matches[2].ID != ids[0] {
		t.Errorf("Find(trip): %v; want the three trips, newest first", err)
	}
	_, err = lib.Find("paris")
	if !errors.Is(err, conversation.ErrNotFound) || !strings.Contains(err.Error(), `"paris"`) || !strings.Contains(err.Error(), dir) {
		t.Errorf("Find(paris): %v; want ErrNotFound naming paris and %s", err, dir)
	}
}

package dialog

import (
	"reflect"
	"strings"
	"testing"

	"time"

	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/theme"
)

// feed gives d a message and, as Bubble Tea would, the messages its
// commands return (the list's search results), returning the last action.
func feed(d *Sessions, msg tea.Msg) Action {
	act, cmd := d.Update(msg)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var m tea.Msg
		select {
		case m = <-done:
		case <-time.After(50 * time.Millisecond):
			return // a cursor blink's timer: not a result
		}
		switch m := m.(type) {
		case tea.BatchMsg:
			for _, c := range m {
				run(c)
			}
		case list.FilterMatchesMsg:
			if a, c2 := d.Update(m); a != nil {
				act = a
			} else {
				run(c2)
			}
		}
	}
	run(cmd)
	return act
}

func typeInto(d *Sessions, s string) {
	for _, r := range s {
		feed(d, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func sessionItems() []SessionItem {
	return []SessionItem{
		{ID: "s4", Title: "zebras in Kenya", Detail: "4 turns"},
		{ID: "s3", Title: "a cat picture"},
		{ID: "s2", Title: "zebras 4 ever"},
		{ID: "s1", Title: "notes on Rome"},
	}
}

// TestSessionsSearch: typing filters — digits included, which never open
// a session by number — and enter opens the match.
func TestSessionsSearch(t *testing.T) {
	st := theme.NewStyles()
	d := NewSessions(theme.DefaultKeyMap(), &st, sessionItems(), "")
	typeInto(d, "zebras 4")
	title, body, _ := d.View(60, 10)
	got := ansi.Strip(strings.Join(body, "\n"))
	// A fuzzy search, best match first and selected.
	if title != "Sessions (2 of 4)" || !strings.Contains(got, "› zebras 4 ever") || strings.Contains(got, "cat picture") || !strings.Contains(got, "search: zebras 4") {
		t.Fatalf("%s:\n%s", title, got)
	}
	if act := feed(d, keyEnter); !reflect.DeepEqual(act, Pick{Index: 2}) {
		t.Fatalf("enter: %#v, want the match (index 2 of the items)", act)
	}
	// esc clears the search first, then closes.
	d = NewSessions(theme.DefaultKeyMap(), &st, sessionItems(), "")
	typeInto(d, "rome")
	if act := feed(d, keyEsc); act != nil {
		t.Fatalf("esc with a search: %#v", act)
	}
	if _, body, _ := d.View(60, 10); strings.Count(ansi.Strip(strings.Join(body, "\n")), "\n") < 3 {
		t.Fatalf("the search was not cleared:\n%s", ansi.Strip(strings.Join(body, "\n")))
	}
	feed(d, keyDown)
	if act := feed(d, keyEnter); !reflect.DeepEqual(act, Pick{Index: 1}) {
		t.Fatalf("down, enter: %#v", act)
	}
	if act := feed(d, keyEsc); !reflect.DeepEqual(act, Close{}) {
		t.Fatalf("esc without a search: %#v", act)
	}
}

// TestSessionsDelete: ctrl+d asks, y deletes; the open session is refused.
func TestSessionsDelete(t *testing.T) {
	st := theme.NewStyles()
	d := NewSessions(theme.DefaultKeyMap(), &st, sessionItems(), "s4")
	ctrlD := tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	if act := feed(d, ctrlD); act != nil {
		t.Fatalf("deleting the open session: %#v", act)
	}
	if _, body, _ := d.View(80, 10); !strings.Contains(ansi.Strip(strings.Join(body, "\n")), "open now") {
		t.Fatal("refusing the open session says nothing")
	}
	feed(d, keyDown)
	feed(d, ctrlD)
	if _, body, _ := d.View(80, 10); !strings.Contains(ansi.Strip(strings.Join(body, "\n")), "delete a cat picture? y deletes") {
		t.Fatalf("no question:\n%s", ansi.Strip(strings.Join(body, "\n")))
	}
	if act := feed(d, letter('n')); act != nil || len(d.Items()) != 4 {
		t.Fatalf("n deleted: %#v", act)
	}
	feed(d, ctrlD)
	if act := feed(d, letter('y')); !reflect.DeepEqual(act, Delete{ID: "s3"}) || len(d.Items()) != 3 {
		t.Fatalf("y: %#v, %d left", act, len(d.Items()))
	}
}

// TestSessionsSearchTurnText: the search reads the turns' text too — "light"
// finds the session where the user asked to "draw a lighthouse", and says
// where it matched — without a long answer matching every short search
// letter by letter.
func TestSessionsSearchTurnText(t *testing.T) {
	st := theme.NewStyles()
	items := []SessionItem{
		{ID: "s3", Title: "morning routine", Text: "say good morning\nGood morning! Here is the audio. " + strings.Repeat("lorem ipsum dolor sit amet ", 40)},
		{ID: "s2", Title: "a picture for the blog", Text: "draw a lighthouse at dusk\nHere is your lighthouse."},
		{ID: "s1", Title: "notes on Rome", Text: "summarise my notes"},
	}
	d := NewSessions(theme.DefaultKeyMap(), &st, items, "")
	typeInto(d, "light")
	title, body, _ := d.View(80, 10)
	got := ansi.Strip(strings.Join(body, "\n"))
	if title != "Sessions (1 of 3)" || !strings.Contains(got, "› a picture for the blog") || !strings.Contains(got, "draw a lighthouse") {
		t.Fatalf("%s:\n%s", title, got)
	}
	if act := feed(d, keyEnter); !reflect.DeepEqual(act, Pick{Index: 1}) {
		t.Fatalf("enter: %#v, want the session that mentions the lighthouse", act)
	}
	// A title match ranks before a match in the text.
	items = append(items, SessionItem{ID: "s0", Title: "lighthouse keepers", Text: "who kept lights"})
	d = NewSessions(theme.DefaultKeyMap(), &st, items, "")
	typeInto(d, "lighthouse")
	_, body, _ = d.View(80, 10)
	got = ansi.Strip(strings.Join(body, "\n"))
	if !strings.Contains(got, "› lighthouse keepers") || !strings.Contains(got, "a picture for the blog") {
		t.Fatalf("title match first, then the text match:\n%s", got)
	}
	// Words are found anywhere in the text, in any order.
	d = NewSessions(theme.DefaultKeyMap(), &st, items, "")
	typeInto(d, "dusk draw")
	if title, _, _ := d.View(80, 10); title != "Sessions (1 of 4)" {
		t.Fatalf("%q", title)
	}
	// No fuzzy letter-by-letter match over a long text.
	d = NewSessions(theme.DefaultKeyMap(), &st, items, "")
	typeInto(d, "zebra")
	if title, _, _ := d.View(80, 10); title != "Sessions (0 of 4)" {
		_, body, _ := d.View(80, 10)
		t.Fatalf("%q: a long text matched a word it does not contain:\n%s", title, ansi.Strip(strings.Join(body, "\n")))
	}
}

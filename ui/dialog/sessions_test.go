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

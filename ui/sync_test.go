package ui

import (
	"strings"
	"testing"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
)

// TestTurnsSavedElsewhereShowUp: while the TUI has a session open,
// another writer (chorus run --continue, another window) adds turns; the
// TUI's next turn has them in its history and shows them in their place
// with a one-line note, and its next save shows the ones added after —
// and the file keeps every turn.
func TestTurnsSavedElsewhereShowUp(t *testing.T) {
	env := newTestEnv(t)
	opts := env.options(t)
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := startSession(t, m, 100, 30)
	s.ready()
	s.submit("first")
	s.wait("the turn", turnsDone(1))

	var id string
	s.wait("the id", func(m *Model) bool { id = m.conv.Session().ID(); return true })
	other := opts.Service.Chat(conversation.ChatOptions{})
	if _, err := other.Open(id); err != nil {
		t.Fatal(err)
	}
	if res := other.Run(testCtx(t), conversation.Request{Request: "from elsewhere"}, func(pipeline.Event) {}); res.Err != nil || !res.Saved {
		t.Fatalf("the other writer's turn: %+v", res)
	}

	s.submit("second")
	s.wait("the turn", turnsDone(3))
	s.wait("the note", func(m *Model) bool { return strings.Contains(chatText(m), "saved elsewhere meanwhile") })

	// Another turn elsewhere, then /save: shown after the TUI's own.
	if res := other.Run(testCtx(t), conversation.Request{Request: "later elsewhere"}, func(pipeline.Event) {}); res.Err != nil {
		t.Fatal(res.Err)
	}
	s.submit("/save")
	s.wait("the later turn", func(m *Model) bool { return len(m.turns) == 4 })
	m = s.finish()
	var order []string
	for _, tr := range m.turns {
		order = append(order, tr.Request)
	}
	if strings.Join(order, ",") != "first,from elsewhere,second,later elsewhere" {
		t.Fatalf("turns on screen: %v", order)
	}
	text := chatText(m)
	if i, j, k := strings.Index(text, "first"), strings.Index(text, "from elsewhere"), strings.Index(text, "second"); i < 0 || !(i < j && j < k) {
		t.Fatalf("the chat shows the turns out of order:\n%s", text)
	}
	var saved []string
	for _, r := range savedTurns(t, m) {
		saved = append(saved, r.Request)
	}
	if strings.Join(saved, ",") != "first,from elsewhere,second,later elsewhere" {
		t.Fatalf("saved: %v", saved)
	}
}

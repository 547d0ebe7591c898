package sessions

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

func requests(s *Session) string {
	var r []string
	for _, t := range s.Turns {
		r = append(r, t.Request)
	}
	return strings.Join(r, ",")
}

// TestTwoWritersLoseNothing: two writers that loaded the same session each
// add a turn and save; the file holds both, in the order they were saved,
// and the second writer learns of the first's turn.
func TestTwoWritersLoseNothing(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("")
	s.AddTurn(Record{Request: "one"})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	tui, _ := st.Load(s.ID)
	run, _ := st.Load(s.ID)
	run.AddTurn(Record{Request: "two"})
	if _, err := st.Merge(run); err != nil {
		t.Fatal(err)
	}
	tui.AddTurn(Record{Request: "three"})
	tui.Model = "llama3.2:3b"
	got, err := st.Merge(tui)
	if err != nil {
		t.Fatal(err)
	}
	if requests(got) != "one,two,three" || got.Model != "llama3.2:3b" {
		t.Fatalf("merged: %s (model %s)", requests(got), got.Model)
	}
	if added := Added(tui, got); len(added) != 1 || added[0].Request != "two" {
		t.Fatalf("added: %+v", added)
	}
	back, _ := st.Load(s.ID)
	if requests(back) != "one,two,three" {
		t.Fatalf("on disk: %s", requests(back))
	}
	if len(tui.Turns) != 2 {
		t.Fatal("Merge changed the writer's own copy")
	}
	// Saving the older copy again puts nothing back and drops nothing.
	if got, err := st.Merge(run); err != nil || requests(got) != "one,two,three" {
		t.Fatalf("a stale copy saved again: %s, %v", requests(got), err)
	}
}

// TestManyWritersAtOnce: writers in parallel, each appending to its own
// copy of one session: every turn is kept.
func TestManyWritersAtOnce(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("shared")
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	const writers, turns = 8, 5
	var wg sync.WaitGroup
	for w := range writers {
		mine, err := st.Load(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for i := range turns {
				mine.AddTurn(Record{Request: fmt.Sprintf("w%d-%d", w, i)})
				if _, err := st.Merge(mine); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	back, err := st.Load(s.ID)
	if err != nil || len(back.Turns) != writers*turns {
		t.Fatalf("%d turns, %v; want %d", len(back.Turns), err, writers*turns)
	}
	// Each writer's turns keep their order.
	for w := range writers {
		next := 0
		for _, tr := range back.Turns {
			if strings.HasPrefix(tr.Request, fmt.Sprintf("w%d-", w)) {
				if tr.Request != fmt.Sprintf("w%d-%d", w, next) {
					t.Fatalf("writer %d's turns out of order: %s", w, requests(back))
				}
				next++
			}
		}
	}
}

// TestOldFilesWithoutTurnIDs: a file written before turns had IDs opens,
// every process derives the same IDs for its turns, and two writers of it
// merge without duplicating them.
func TestOldFilesWithoutTurnIDs(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	old := `{"version":1,"id":"20250301-090000-000-00000001","title":"cats","created":"2025-03-01T09:00:00Z",
"updated":"2025-03-01T09:05:00Z","turns":[{"request":"draw a cat","answer":"done"},{"request":"bigger","answer":"ok"}]}`
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.path("20250301-090000-000-00000001"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := st.Load("20250301-090000-000-00000001")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Load(a.ID)
	if a.Turns[0].ID == "" || a.Turns[0].ID != b.Turns[0].ID || a.Turns[0].ID == a.Turns[1].ID {
		t.Fatalf("ids: %q %q %q", a.Turns[0].ID, b.Turns[0].ID, a.Turns[1].ID)
	}
	a.AddTurn(Record{Request: "from a"})
	b.AddTurn(Record{Request: "from b"})
	if _, err := st.Merge(a); err != nil {
		t.Fatal(err)
	}
	got, err := st.Merge(b)
	if err != nil || requests(got) != "draw a cat,bigger,from a,from b" {
		t.Fatalf("merged: %s, %v", requests(got), err)
	}
}

// TestMergeNeverWritesOverADamagedFile: a file that cannot be read is the
// user's to repair; a save refuses to replace it.
func TestMergeNeverWritesOverADamagedFile(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("x")
	s.AddTurn(Record{Request: "hi"})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.path(s.ID), []byte(`{"version":1,"turns":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := st.Merge(s)
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "left untouched") {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(st.path(s.ID)); string(data) != `{"version":1,"turns":[` {
		t.Fatalf("the damaged file was replaced: %q", data)
	}
}

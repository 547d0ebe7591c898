package sessions

import (
	"path/filepath"
	"testing"
)

// TestSaveOrderKeepsTheNewest: a save of an older snapshot that reaches
// the disk after a newer one writes nothing.
func TestSaveOrderKeepsTheNewest(t *testing.T) {
	st := Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	var o SaveOrder
	s := st.New("")
	s.AddTurn(Turn{Request: "first"})
	older := *s
	olderSeq := o.Next()
	s.AddTurn(Turn{Request: "second"})
	newerSeq := o.Next()
	if newerSeq <= olderSeq {
		t.Fatalf("Next did not count up: %d then %d", olderSeq, newerSeq)
	}
	if err := o.Save(st, s, newerSeq); err != nil {
		t.Fatal(err)
	}
	if err := o.Save(st, &older, olderSeq); err != nil {
		t.Fatal(err)
	}
	back, err := st.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Turns) != 2 {
		t.Fatalf("the older snapshot landed last: %d turns on disk", len(back.Turns))
	}

	// Another session is not held back by this one's numbers.
	other := st.New("other")
	other.AddTurn(Turn{Request: "x"})
	if err := o.Save(st, other, olderSeq); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(other.ID); err != nil {
		t.Fatal(err)
	}
}

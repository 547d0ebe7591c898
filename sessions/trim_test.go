package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

// bigTurn is a turn whose task returned result bytes, passed on as an
// argument to a second task.
func bigTurn(request string, result int) Record {
	res := strings.Repeat("r", result)
	return Record{Request: request, Answer: "answer to " + request, Report: &pipeline.Report{Request: request, Tasks: []pipeline.TaskReport{
		{TaskEndEvent: pipeline.TaskEndEvent{ID: 1, Task: "image-to-text", Status: pipeline.StatusOK, Result: res}},
		{TaskEndEvent: pipeline.TaskEndEvent{ID: 2, Task: "summarization", Status: pipeline.StatusOK, Result: "short"}, Args: map[string]string{"text": res}},
	}}}
}

// TestSaveKeepsTheSessionLoadable: turns whose results add up past what a
// load accepts are saved trimmed — the oldest results first, each saying it
// was trimmed — and the file loads; the newest turn, and the session in
// memory, keep theirs whole.
func TestSaveKeepsTheSessionLoadable(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir(), maxBytes: 300 << 10}
	s := st.New("")
	for _, r := range []string{"first", "second", "third"} {
		s.AddTurn(bigTurn(r, 60<<10))
	}
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(st.path(s.ID))
	if err != nil || info.Size() > int64(st.maxBytes) {
		t.Fatalf("saved %d bytes, over the %d a load accepts (%v)", info.Size(), st.maxBytes, err)
	}
	got, err := st.Load(s.ID)
	if err != nil {
		t.Fatalf("the saved session does not load: %v", err)
	}
	first, last := got.Turns[0].Report.Tasks, got.Turns[2].Report.Tasks
	if len(first[0].Result) > 8<<10 || !strings.Contains(first[0].Result, "trimmed when the session was saved") ||
		!strings.Contains(first[1].Args["text"], "trimmed when the session was saved") {
		t.Fatalf("the oldest turn's result was not trimmed with a note: %d bytes", len(first[0].Result))
	}
	if len(last[0].Result) != 60<<10 || got.Turns[0].Answer != "answer to first" {
		t.Fatalf("the newest result (%d bytes) or an answer was trimmed before the oldest results", len(last[0].Result))
	}
	if len(s.Turns[0].Report.Tasks[0].Result) != 60<<10 || len(s.Turns[0].Report.Tasks[1].Args["text"]) != 60<<10 {
		t.Fatal("the session in memory was trimmed")
	}
}

// TestSaveThatCannotFitWritesNothing: a session that would not fit even
// trimmed is not written — the file on disk stays as it was — and the error
// says what to do.
func TestSaveThatCannotFitWritesNothing(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir(), maxBytes: 16 << 10}
	s := st.New("")
	s.AddTurn(Record{Request: "hi", Answer: "hello"})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(st.path(s.ID))
	for i := range 300 {
		s.AddTurn(Record{Request: "turn " + strings.Repeat("x", i)})
	}
	err := st.Save(s)
	if err == nil || !strings.Contains(err.Error(), "start a new session") {
		t.Fatalf("save of a session that cannot fit: %v", err)
	}
	if after, _ := os.ReadFile(st.path(s.ID)); string(after) != string(before) {
		t.Fatal("the file was written over")
	}
}

// TestTooLargeSessionSaysWhatToDo: a file over what a load accepts (written
// by an earlier version) is not called damaged: the error says why it was
// not opened and what to do, and leaves it as it is.
func TestTooLargeSessionSaysWhatToDo(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir(), maxBytes: 4 << 10}
	id := "20250101-000000-000-0001"
	body := `{"version":1,"id":"` + id + `","turns":[{"request":"` + strings.Repeat("a", 8<<10) + `"}]}`
	if err := os.WriteFile(filepath.Join(st.Dir, id+".json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := st.Load(id)
	if !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrDamaged) {
		t.Fatalf("Load: %v, want ErrTooLarge", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "damaged") || !strings.Contains(msg, "start a new session") || !strings.Contains(msg, "left untouched") {
		t.Fatalf("the error does not say what to do: %s", msg)
	}
	_, err = st.Latest()
	if !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "the newest session cannot be loaded") {
		t.Fatalf("Latest with only a session too large: %v — it must not read as no session at all", err)
	}
}

// TestTrimmedSavesOfTwoWritersLoseNoTurn: the TUI and `chorus run
// --continue` on one session, each saving turns big enough to be trimmed:
// every turn of both is on disk and the file loads — a trim cuts results,
// never a turn, and never undoes the other writer's.
func TestTrimmedSavesOfTwoWritersLoseNoTurn(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir(), maxBytes: 300 << 10}
	s := st.New("")
	s.AddTurn(bigTurn("one", 60<<10))
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	tui, _ := st.Load(s.ID)
	run, _ := st.Load(s.ID)
	for _, r := range []string{"run-1", "run-2"} {
		run.AddTurn(bigTurn(r, 60<<10))
		if _, err := st.Merge(run); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []string{"tui-1", "tui-2"} {
		tui.AddTurn(bigTurn(r, 60<<10))
		if _, err := st.Merge(tui); err != nil {
			t.Fatal(err)
		}
	}
	back, err := st.Load(s.ID)
	if err != nil {
		t.Fatalf("the merged, trimmed session does not load: %v", err)
	}
	if got := requests(back); got != "one,run-1,run-2,tui-1,tui-2" {
		t.Fatalf("on disk: %s", got)
	}
	if info, _ := os.Stat(st.path(s.ID)); info.Size() > int64(st.maxBytes) {
		t.Fatalf("saved %d bytes, over the %d a load accepts", info.Size(), st.maxBytes)
	}
	if last := back.Turns[4].Report.Tasks[0].Result; len(last) != 60<<10 {
		t.Fatalf("the newest turn's result was trimmed (%d bytes)", len(last))
	}
}

package execution

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
)

// spillRun is a turn whose results spill past cap bytes into out, with
// the turn's quota turnQuota and the folder's dirQuota; it records the
// progress it reports.
func spillRun(t *testing.T, out string, cap int, turnQuota, dirQuota int64) (*Executor, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var said []string
	tr := &Executor{ResultCap: cap, SpillQuota: turnQuota, SpillDirQuota: dirQuota, OutDir: out, Scope: scope.New(scope.Options{}),
		Emit: func(ev flow.Event) {
			if p, ok := ev.(flow.TaskProgressEvent); ok {
				mu.Lock()
				said = append(said, p.Message)
				mu.Unlock()
			}
		}}
	return tr, &said
}

// spilledBytes is the bytes of the spilled results in dir.
func spilledBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.Contains(e.Name(), "-result-") {
			n += info.Size()
		}
	}
	return n
}

// TestSpillQuotas: the results one turn spills to files are bounded
// (spill_quota), and so are those one folder holds across turns and chats
// (an ssh user's outputs, serve.spill_quota); a result past either keeps
// its start, with a line naming the bound and the key, and writes nothing.
func TestSpillQuotas(t *testing.T) {
	t.Parallel()
	result := strings.Repeat("x", 4000)
	t.Run("per turn", func(t *testing.T) {
		t.Parallel()
		out := t.TempDir()
		tr, said := spillRun(t, out, 1000, 10_000, 0)
		for id := 1; id <= 3; id++ {
			r := &flow.TaskRun{Task: flow.Task{ID: id, Task: "summarization"}, Text: result}
			tr.spill(r)
			if id <= 2 && r.Spilled == "" {
				t.Fatalf("result %d was not spilled within the quota: %.200s", id, r.Text)
			}
			if id == 3 {
				if r.Spilled != "" || len(r.Text) > 1200 || !strings.Contains(r.Text, "spill_quota") {
					t.Fatalf("the result past the turn's quota: spilled %q, kept %d bytes: %.300s", r.Spilled, len(r.Text), r.Text[min(len(r.Text), 1000):])
				}
			}
		}
		if n := spilledBytes(t, out); n != 8000 {
			t.Fatalf("%d bytes spilled; want the two results within the quota", n)
		}
		if len(*said) == 0 || !strings.Contains((*said)[len(*said)-1], "spill_quota") {
			t.Fatalf("progress does not say why: %q", *said)
		}
		// A new turn has its quota again.
		next, _ := spillRun(t, out, 1000, 10_000, 0)
		r := &flow.TaskRun{Task: flow.Task{ID: 1, Task: "summarization"}, Text: result}
		if next.spill(r); r.Spilled == "" {
			t.Fatal("the next turn could not spill")
		}
	})
	t.Run("per folder", func(t *testing.T) {
		t.Parallel()
		out := t.TempDir()
		// Results an earlier turn (or another chat of the user) left.
		if err := os.WriteFile(filepath.Join(out, "20260101-000000-summarization-result-1-abcdef.txt"), []byte(strings.Repeat("y", 7000)), 0o644); err != nil {
			t.Fatal(err)
		}
		tr, said := spillRun(t, out, 1000, 1<<30, 10_000)
		r := &flow.TaskRun{Task: flow.Task{ID: 1, Task: "summarization"}, Text: result}
		tr.spill(r)
		if r.Spilled != "" || !strings.Contains(r.Text, "serve.spill_quota") {
			t.Fatalf("a result past the folder's quota: spilled %q: %.300s", r.Spilled, r.Text[min(len(r.Text), 1000):])
		}
		if n := spilledBytes(t, out); n != 7000 {
			t.Fatalf("%d bytes of results in the folder; the refused one was written", n)
		}
		if len(*said) == 0 || !strings.Contains((*said)[0], "serve.spill_quota") {
			t.Fatalf("progress does not say why: %q", *said)
		}
		small := &flow.TaskRun{Task: flow.Task{ID: 2, Task: "summarization"}, Text: strings.Repeat("z", 2500)}
		if tr.spill(small); small.Spilled == "" {
			t.Fatal("a result that fits the folder's room was not spilled")
		}
	})
}

package execution

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// A task's text result goes many places: its task_end event, the report,
// `chorus run`'s output and --json, the TUI's panes, the saved session, the
// prompts of later stages. An expert or an MCP tool may return tens of
// megabytes — a page, a log, a file's contents — and each of those copies
// would hold it whole (six 30 MB results once took 2.6 GB and a 220 MB
// session). So a result has one cap, Options.ResultCap: beyond it the whole
// result is written to a file in the output folder — a file Chorus wrote,
// granted to the turn and listed with its files, so later tasks and turns
// may read it — and the result everywhere else is its start and a line
// naming that file. Tasks of the same turn that take the result as a text
// argument still get it whole, from the file (resolveArgs).

// DefaultResultCap is Options.ResultCap when it is not set: room for any
// answer, caption or page summary, far under what would weigh on a
// session or a terminal.
const DefaultResultCap = 64 << 10

// DefaultSpillQuota is Options.SpillQuota when it is not set: 1 GB of
// results written to files in one turn.
const DefaultSpillQuota = 1_000_000_000

// spill keeps r's text result within the cap, writing the whole of a
// longer one to a file in the turn's outputs folder. A file that cannot be written does
// not fail the task: the start of the result stands, and progress says
// what was lost.
func (x *Executor) spill(r *flow.TaskRun) {
	outDir, sc, progress := x.OutDir, x.Scope, x.progress(r.Task.ID)
	limit := x.ResultCap
	if len(r.Text) <= limit {
		return
	}
	head, more := text.ClipBytes(r.Text, limit)
	release, why := x.spillRoom(int64(len(r.Text)))
	if why != "" {
		r.Text = head + fmt.Sprintf("\n\n[%s more not kept: %s]", skills.HumanBytes(int64(more)), why)
		progress(endpoints.Progress{Message: fmt.Sprintf("the result is %s; only its first %s is kept: %s",
			skills.HumanBytes(int64(len(head)+more)), skills.HumanBytes(int64(limit)), why)})
		return
	}
	p, err := writeText(outDir, r.Task.Task+"-result", r.Task.ID, r.Text)
	release(err == nil)
	if err != nil {
		r.Text = head + fmt.Sprintf("\n\n[%s more not kept: %v]", skills.HumanBytes(int64(more)), err)
		progress(endpoints.Progress{Message: fmt.Sprintf("the result is %s; only its first %s is kept, because the whole could not be saved: %v",
			skills.HumanBytes(int64(len(head)+more)), skills.HumanBytes(int64(limit)), err)})
		return
	}
	// Chorus wrote it: the turn may read it, and so may later turns (the
	// chat log lists it with the turn's files).
	sc.AllowFile(p, scope.Output)
	r.Files = append(r.Files, p)
	r.Spilled = p
	r.Text = head + fmt.Sprintf("\n\n[%s more — the whole result (%s) is in %s]", skills.HumanBytes(int64(more)), skills.HumanBytes(int64(len(head)+more)), p)
}

// spillRoom takes room for n bytes of spilled result: within the turn's
// quota (Options.SpillQuota) and, with Turn.SpillDirQuota, within what the
// output folder may hold of them. It returns why there is none, or
// release, to call once the file is written (ok) or not: the folder's
// room is checked and taken under its lock, so two chats of one ssh user
// cannot both take the last of it.
func (x *Executor) spillRoom(n int64) (release func(ok bool), why string) {
	quota := x.SpillQuota
	if used := x.spilled.Add(n); used > quota {
		x.spilled.Add(-n)
		return nil, fmt.Sprintf("this turn's results already fill the %s it may keep in files (spill_quota)", skills.HumanBytes(quota))
	}
	undo := func(ok bool) {
		if !ok {
			x.spilled.Add(-n)
		}
	}
	dirQuota := x.SpillDirQuota
	if dirQuota <= 0 {
		return undo, ""
	}
	mu := spillLock(x.OutDir)
	mu.Lock()
	if used := spilledIn(x.OutDir); used+n > dirQuota {
		mu.Unlock()
		x.spilled.Add(-n)
		return nil, fmt.Sprintf("your folder on this server holds %s of kept results, and may hold %s (serve.spill_quota) — ask its operator to clear it or raise the quota",
			skills.HumanBytes(used), skills.HumanBytes(dirQuota))
	}
	return func(ok bool) { mu.Unlock(); undo(ok) }, ""
}

// spillLocks are the output folders' locks, by folder.
var spillLocks sync.Map

func spillLock(dir string) *sync.Mutex {
	mu, _ := spillLocks.LoadOrStore(filepath.Clean(dir), &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// spilledIn is the bytes of the spilled results in dir: the files
// writeText named (…-result-ID-…), earlier turns' and chats' included.
func spilledIn(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.Contains(e.Name(), "-result-") {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

// writeText stores s as a text file under dir, named as writeBlob names
// results, without a copy of s in memory: it goes to a temporary file
// first, which writeBlob then moves into place.
func writeText(dir, task string, id int, s string) (string, error) {
	f, err := os.CreateTemp(dir, ".result-*.tmp")
	if err != nil {
		return "", fmt.Errorf("cannot write the result file: %w", err)
	}
	_, err = io.WriteString(f, s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("cannot write the result file: %w", err)
	}
	return writeBlob(dir, task, id, endpoints.Blob{Path: f.Name(), MIME: "text/plain; charset=utf-8"})
}

// wholeText is r's text result whole: read back from the file it was
// spilled to, for a task of the same turn that takes it as an argument.
// The file is read through the turn's scope like any other: it is granted
// as the file Chorus wrote, so what stands at its path now — a link to a
// key put there since, by a tool that may write in the output folder — is
// not read; the start and the note naming the file stand instead.
func wholeText(r *flow.TaskRun, sc *scope.Scope) string {
	if r.Spilled == "" {
		return r.Text
	}
	f, err := sc.Check(r.Spilled)
	if err != nil {
		return r.Text
	}
	b, err := f.ReadAll(maxSpilled)
	if err != nil {
		return r.Text // the start, and the note naming the file
	}
	return string(b)
}

// maxSpilled bounds a spilled result read back whole (1 GB): the result was
// in memory once already, so this only stops a file that grew without
// bound after Chorus wrote it.
const maxSpilled = 1 << 30

package pipeline

import (
	"fmt"
	"io"
	"os"

	"github.com/chorusai/chorus/endpoints"
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

// spill keeps r's text result within the cap, writing the whole of a
// longer one to a file in the turn's outputs folder. A file that cannot be written does
// not fail the task: the start of the result stands, and progress says
// what was lost.
func (tr *turnRun) spill(r *taskRun) {
	e, outDir, sc, progress := tr.e, tr.outDir, tr.sc, tr.progress(r.task.ID)
	limit := e.opts.ResultCap
	if len(r.text) <= limit {
		return
	}
	head, more := text.ClipBytes(r.text, limit)
	p, err := writeText(outDir, r.task.Task+"-result", r.task.ID, r.text)
	if err != nil {
		r.text = head + fmt.Sprintf("\n\n[%s more not kept: %v]", skills.HumanBytes(int64(more)), err)
		progress(endpoints.Progress{Message: fmt.Sprintf("the result is %s; only its first %s is kept, because the whole could not be saved: %v",
			skills.HumanBytes(int64(len(head)+more)), skills.HumanBytes(int64(limit)), err)})
		return
	}
	// Chorus wrote it: the turn may read it, and so may later turns (the
	// chat log lists it with the turn's files).
	sc.AllowFile(p, scope.Output)
	r.files = append(r.files, p)
	r.spilled = p
	r.text = head + fmt.Sprintf("\n\n[%s more — the whole result (%s) is in %s]", skills.HumanBytes(int64(more)), skills.HumanBytes(int64(len(head)+more)), p)
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
func (r *taskRun) wholeText() string {
	if r.spilled == "" {
		return r.text
	}
	b, err := os.ReadFile(r.spilled)
	if err != nil {
		return r.text // the start, and the note naming the file
	}
	return string(b)
}

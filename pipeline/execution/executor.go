package execution

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Executor runs the tasks of one turn: HuggingGPT's third stage. Each
// task runs on the model its selection chose (Run), falling back along the
// ranking; its arguments pass the turn's one gate (scope) before any
// endpoint sees them, and its results are checked, written to the turn's
// output folder, and kept to the result cap. The engine's dispatcher
// decides when a task runs; the Executor only runs it.
type Executor struct {
	Controller *controller.Controller
	Catalog    *skills.Catalog
	// Script is the turn's controller conversation (a text task the
	// controller does continues it); Emit where the turn's events go.
	Script *flow.Transcript
	Emit   flow.Emit
	// Scope is what the turn may read and fetch; OutDir where its files
	// go (absolute).
	Scope  *scope.Scope
	OutDir string
	// Workspace and Chat are the turn's (pipeline.Turn): where a remote
	// user's paths resolve, whose chat an endpoint keeps things for.
	Workspace string
	Chat      string
	// TaskTimeout bounds one task, fallbacks included; ResultCap a text
	// result kept in events and the report (longer ones are spilled to a
	// file); SpillQuota the bytes the turn spills, SpillDirQuota those the
	// output folder holds (0: no bound).
	TaskTimeout   time.Duration
	ResultCap     int
	SpillQuota    int64
	SpillDirQuota int64
	// EarlyAnswer fixes the paths of files an answer may name before they
	// exist (FixPath); CanSee says the controller looks at images, so an
	// image it would answer about is not one. Exts remembers, per task,
	// the extension its last file had: the engine's, shared by its turns.
	EarlyAnswer bool
	CanSee      bool
	Exts        *sync.Map

	// down are the hosts the turn found down: its tasks skip them.
	down downHosts
	// spilled is the bytes of results the turn wrote to files (spill.go).
	spilled atomic.Int64
	// dirOnce creates the output directory when the first task runs.
	dirOnce sync.Once
	dirErr  error
}

// job is a task while it runs: its record, its context, and what only
// the running needs.
type job struct {
	*flow.TaskRun
	ctx context.Context
	// inputs are the checked files of the media arguments.
	inputs map[string]scope.File
	// shift is what calls said they took (a replay's recorded times)
	// beyond what they took now; the task's time includes it.
	shift time.Duration
	// skippedDown counts the candidates this run skipped for a host that
	// is down, downErr the first such host's failure.
	skippedDown int
	downErr     *endpoints.HostDownError
}

// progress returns the progress callback of task id: each report becomes
// the task's progress event.
func (x *Executor) progress(id int) func(endpoints.Progress) {
	return func(p endpoints.Progress) {
		x.Emit(flow.TaskProgressEvent{ID: id, Message: p.Message, WaitMS: p.Wait.Milliseconds(), Passing: p.Passing})
	}
}

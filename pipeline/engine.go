// Package pipeline is the engine that runs one Chorus turn through
// HuggingGPT's four stages — task planning, model selection, task
// execution and response generation — and Chorus's fifth, the revision of
// a plan whose tasks failed. Each stage is a package of its own
// (pipeline/planning, selection, execution, response) over the vocabulary
// they share (pipeline/flow); only the engine imports them. Engine.Run
// ties them together for a turn (turnRun), schedules its tasks as a DAG
// (dispatcher), and publishes typed events as it goes.
package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/selection"
	"github.com/chorusai/chorus/skills"
)

// Given is what the user gave in one turn: the request they typed and the
// files or folders they attached. A front end keeps it in memory for the
// chat's later turns (Turn.Earlier); it is never read back from a session.
type Given struct {
	Request     string
	Attachments []string
}

// Turn is one request to run.
type Turn struct {
	// Request is what the user wrote: the paths and URLs in it are granted
	// as typed (access.go).
	Request string
	// Input is data the user passed with the request — piped stdin when the
	// request came as arguments. The controller reads it, quoted as data,
	// after the request; a path or URL inside it grants nothing.
	Input string
	// Attachments are files the user attached (images, audio, video, text).
	Attachments []string
	// History is the chat log of earlier turns, oldest first. It is read
	// from the session file — data from disk, not the user's typing — so
	// the paths in it grant only files Chorus wrote (access.go).
	History []flow.Message
	// Earlier are the requests and attachments the user gave in earlier
	// turns of this chat, as the front end kept them in memory: what was
	// typed or attached there is granted again, as in the turn it was
	// given.
	Earlier []Given
	// Constraints are the user's standing constraints; the planner may add
	// more from the request.
	Constraints flow.Constraints
	// PlanOnly stops after planning.
	PlanOnly bool
	// System is the user's instruction for the answer (chorus run
	// --system, or a saved role): the answer stage reads it first, and
	// nothing else does — it shapes how the answer is written (tone,
	// length, language), not the plan, and grants nothing.
	System string
	// Review, when set, is called with the validated plan before anything
	// runs; it returns the plan to run (possibly edited) or an error to
	// cancel the turn. Edited plans are validated again.
	Review func(ctx context.Context, p flow.Plan) (flow.Plan, error)
	// Approve, when set, is asked before a call that may change things
	// runs — an MCP tool not annotated read-only, or annotated
	// destructive — with the call; nil lets it run, an error refuses it
	// (saying why). Without it such calls are refused.
	Approve func(ctx context.Context, a flow.Approval) error
	// OutputDir overrides the engine's output directory for this turn.
	OutputDir string
	// Workspace, when set, confines what the turn may read to this
	// directory (scope.Options.Root), and paths resolve from it: the turn
	// of a user on another machine (chorus serve --ssh).
	Workspace string
	// SpillDirQuota, when set, bounds the bytes of spilled results the
	// turn's output folder may hold, this turn's and earlier ones' of any
	// chat together: the folder of an ssh user (serve.spill_quota).
	SpillDirQuota int64
	// Chat names the conversation the turn belongs to: the controller's
	// queue serves chats in turn (controller.ForChat), so a front end with
	// several chats sets it; empty counts the turn as a chat of its own.
	Chat string
}

// Options tune the engine.
type Options struct {
	// NumCandidates is the top-K of selection (num_candidate_models).
	NumCandidates int
	// MaxParallel bounds concurrently running tasks.
	MaxParallel int
	// TaskTimeout bounds one task, fallbacks included.
	TaskTimeout time.Duration
	// OutputDir receives generated files.
	OutputDir string
	// ControllerTasks lets the controller do text tasks itself.
	ControllerTasks bool
	// Selection says when the controller chooses among candidates; the
	// zero value is SelectController.
	Selection selection.Mode
	// MaxTasks caps a plan; extra tasks are dropped with a note.
	MaxTasks int
	// ResultBudget bounds, in bytes, the results text given to the
	// response stage (and to a revision, which sees what it sees).
	ResultBudget int
	// Revise is how many times a turn may revise its plan after tasks
	// failed for good (planner.revise; revise.go): 0 never, 1 once.
	// Unlike the other options its zero value is not a default: the
	// configuration gives 1.
	Revise int
	// ResultCap bounds, in bytes, what a task's text result contributes
	// to events, the report and the session; a longer result is written
	// whole to a file in the output folder and referenced (spill.go).
	// 0 means DefaultResultCap.
	ResultCap int
	// Hub looks up, on the Hugging Face Hub, a model the request names
	// that the catalog does not list (namedhub.go); nil looks none up, and
	// the plan's notes say so.
	Hub selection.HubLookup
	// SpillQuota bounds the bytes of results one turn writes to files
	// (spill.go); past it a result keeps only its start. 0 means
	// DefaultSpillQuota (spill_quota).
	SpillQuota int64
	// EarlyAnswer starts the answer while the last tasks still run when
	// each of them produces one file at a path fixed in advance and the
	// answer needs only that path (response.early; early.go).
	EarlyAnswer bool
	// Logger records each turn's stages, choices, endpoint failures and
	// outcome for the log file; nil discards. See log.go for what is
	// never logged.
	Logger *slog.Logger
}

func (o *Options) defaults() {
	if o.NumCandidates <= 0 {
		o.NumCandidates = 5
	}
	if o.MaxParallel <= 0 {
		o.MaxParallel = 8
	}
	if o.TaskTimeout <= 0 {
		o.TaskTimeout = 3 * time.Minute
	}
	if o.OutputDir == "" {
		o.OutputDir = "chorus-output"
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = 16
	}
	if o.ResultBudget <= 0 {
		o.ResultBudget = 8000
	}
	if o.ResultCap <= 0 {
		o.ResultCap = execution.DefaultResultCap
	}
	if o.SpillQuota <= 0 {
		o.SpillQuota = execution.DefaultSpillQuota
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Engine runs turns. Turns may run on one Engine at the same time (the
// chats of `chorus serve --ssh` share one): each turn's state is its own,
// and what the Engine keeps between turns — the availability cache, the
// controller's caches, the endpoints' — is guarded. A chat
// (conversation.Chat) makes a new Engine (cheaply, WithController) when its
// controller model changes; `chorus eval` one per controller it compares.
type Engine struct {
	ctl    *controller.Controller
	cat    *skills.Catalog
	router *endpoints.Router
	opts   Options
	// avail caches which skills can run, for the prompt head.
	avail *availCache
	// exts remembers, per task name, the extension of the file that kind
	// of task produced last: the one its next file's fixed path gets.
	exts *sync.Map
}

// New returns an engine.
func New(ctl *controller.Controller, cat *skills.Catalog, router *endpoints.Router, opts Options) *Engine {
	opts.defaults()
	return &Engine{ctl: ctl, cat: cat, router: router, opts: opts, avail: &availCache{}, exts: &sync.Map{}}
}

// Controller returns the engine's controller.
func (e *Engine) Controller() *controller.Controller { return e.ctl }

// Catalog returns the engine's skill catalog.
func (e *Engine) Catalog() *skills.Catalog { return e.cat }

// Router returns the engine's endpoint router.
func (e *Engine) Router() *endpoints.Router { return e.router }

// CloseChat ends what the endpoints keep for chat alone (a server started
// for a confined chat's turns: endpoints.ChatCloser); a front end calls it
// when the chat ends.
func (e *Engine) CloseChat(chat string) {
	if e.router == nil || chat == "" {
		return
	}
	for _, k := range e.router.Kinds() {
		if ep, ok := e.router.Endpoint(k); ok {
			if c, ok := ep.(endpoints.ChatCloser); ok {
				c.CloseChat(chat)
			}
		}
	}
}

// selector is the selection stage on the engine's catalog, endpoints and
// controller.
func (e *Engine) selector() *selection.Selector {
	return &selection.Selector{Catalog: e.cat, Router: e.router, Controller: e.ctl, NumCandidates: e.opts.NumCandidates,
		ControllerTasks: e.opts.ControllerTasks, Mode: e.opts.Selection, Hub: e.opts.Hub}
}

// Preview runs selection for task without asking the controller: what
// `chorus models list` and the TUI's /models show. The event lists the
// ranked candidates and every excluded model with the reason.
func (e *Engine) Preview(ctx context.Context, task string, cons flow.Constraints) (flow.ModelEvent, error) {
	return e.selector().Preview(ctx, task, cons)
}

// Unqualifiable says why no model of the catalog can meet cons with the
// endpoints configured ("" when some can): said once, before a turn
// under cons, rather than found out task by task.
func (e *Engine) Unqualifiable(cons flow.Constraints) string {
	return e.selector().Unqualifiable(cons)
}

// Options returns the engine's options.
func (e *Engine) Options() Options { return e.opts }

// WithController returns an engine sharing everything but the controller.
func (e *Engine) WithController(ctl *controller.Controller) *Engine {
	c := *e
	c.ctl = ctl
	return &c
}

// WithRouter returns an engine sharing everything but the endpoints (and
// the look at which skills they can run): the same controller, catalog
// and options on other experts — chorus eval's failure cases run turns on
// scripted ones.
func (e *Engine) WithRouter(router *endpoints.Router) *Engine {
	c := *e
	c.router, c.avail = router, &availCache{}
	return &c
}

// syncEmit serialises emit so stages running concurrently never call it at
// the same time.
func syncEmit(emit flow.Emit) flow.Emit {
	if emit == nil {
		return func(flow.Event) {}
	}
	var mu sync.Mutex
	return func(ev flow.Event) {
		mu.Lock()
		defer mu.Unlock()
		emit(ev)
	}
}

// turnIDs names the turns that belong to no named chat.
var turnIDs atomic.Int64

// watchQueue marks ctx's controller calls as chat's and turns the queue's
// reports into QueueEvents, until stop: a report that comes after the turn
// ended (a slot granted as the call finished) is dropped.
func watchQueue(ctx context.Context, chat string, emit flow.Emit) (context.Context, func()) {
	if chat == "" {
		chat = fmt.Sprintf("\x00turn-%d", turnIDs.Add(1))
	}
	var mu sync.Mutex
	stopped := false
	watch := func(ahead int) {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			emit(flow.QueueEvent{Waiting: ahead >= 0, Ahead: max(ahead, 0)})
		}
	}
	return controller.ForChat(ctx, chat, watch), func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}

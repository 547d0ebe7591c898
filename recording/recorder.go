package recording

import (
	"slices"
	"sync"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline"
)

// Recorder records a chat while it runs: Engine wraps the engine so its
// controller and expert traffic are copied, BeginTurn marks each request,
// and Save writes what was recorded so far. It is safe for concurrent
// use.
type Recorder struct {
	path    string
	header  Recording
	ctl     *controller.Wiretap
	experts *expertLog
	// plain is the router before it was wrapped, for Release.
	plain *endpoints.Router

	mu    sync.Mutex
	turns []Request
	// saving serialises saves, each taking its snapshot inside: the file
	// last written holds the newest state.
	saving sync.Mutex
}

// Header is what a recording says about the chat it was made from.
type Header struct {
	// Chorus is the program's version.
	Chorus string
	// Constraints are the chat's standing constraints.
	Constraints pipeline.Constraints
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewRecorder returns a recorder that saves to path. Nothing is written
// until Save.
func NewRecorder(path string, h Header) *Recorder {
	now := h.Now
	if now == nil {
		now = time.Now
	}
	return &Recorder{
		path:    path,
		header:  Recording{Format: Format, Created: now().UTC().Truncate(time.Second), Chorus: h.Chorus, Constraints: h.Constraints},
		ctl:     controller.NewWiretap(),
		experts: newExpertLog(),
	}
}

// Path returns the file the recorder saves to.
func (r *Recorder) Path() string { return r.path }

// Engine returns an engine that runs as eng does while recording its
// traffic. It is a new engine, so its checks of which skills can run are
// made again, through the recording, and land in it.
func (r *Recorder) Engine(eng *pipeline.Engine) *pipeline.Engine {
	opts := eng.Options()
	r.mu.Lock()
	if r.plain == nil {
		r.plain = eng.Router()
	}
	r.header.Model = eng.Controller().Model()
	r.header.Mode = string(eng.Router().Mode())
	r.header.Catalog = CatalogDigest(eng.Catalog())
	r.header.NumCandidates = opts.NumCandidates
	r.header.ControllerTasks = opts.ControllerTasks
	r.header.Selection = opts.Selection
	r.header.Revise = opts.Revise
	plain := r.plain
	r.mu.Unlock()
	return pipeline.New(eng.Controller().Tapped(r.ctl), eng.Catalog(), recordRouter(plain, r.experts), opts)
}

// Release returns an engine like eng (the one Engine returned, perhaps
// since given another controller model) that no longer records.
func (r *Recorder) Release(eng *pipeline.Engine) *pipeline.Engine {
	r.mu.Lock()
	plain := r.plain
	r.mu.Unlock()
	if plain == nil {
		plain = eng.Router()
	}
	return pipeline.New(eng.Controller().Tapped(nil), eng.Catalog(), plain, eng.Options())
}

// BeginTurn records that a turn with this request starts.
func (r *Recorder) BeginTurn(request string, attachments []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turns = append(r.turns, Request{Request: request, Attachments: slices.Clone(attachments)})
}

// Turns returns how many turns were recorded.
func (r *Recorder) Turns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.turns)
}

// Recording returns what was recorded so far.
func (r *Recorder) Recording() *Recording {
	r.mu.Lock()
	rec := r.header
	rec.Turns = slices.Clone(r.turns)
	r.mu.Unlock()
	if rec.Turns == nil {
		rec.Turns = []Request{}
	}
	rec.Traffic = r.ctl.Traffic()
	rec.Experts = r.experts.snapshot()
	return &rec
}

// Save writes what was recorded so far to the recorder's file.
func (r *Recorder) Save() error {
	r.saving.Lock()
	defer r.saving.Unlock()
	return r.Recording().Save(r.path)
}

package recording

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// Replay is a recording opened to be played back.
type Replay struct {
	// Recording is what was recorded.
	*Recording
	// Source names the file in messages.
	Source string
	// Pace is the speed of the replay.
	Pace Pace
}

// Open loads the recording at path for replay at pace.
func Open(path string, pace Pace) (*Replay, error) {
	r, err := Load(path)
	if err != nil {
		return nil, err
	}
	return &Replay{Recording: r, Source: path, Pace: pace}, nil
}

// Controller returns a controller that answers from the recording, with
// opts' token bounds and logger.
func (r *Replay) Controller(opts controller.Options) *controller.Controller {
	return controller.Replay(r.Traffic, controller.ReplayOptions{Source: r.Source, Model: r.Model, Wait: r.Pace.Wait, Options: opts})
}

// Router returns a router, in the recorded mode, whose endpoints answer
// from the recording: the recorded kinds, checks, offers and results.
func (r *Replay) Router() (*endpoints.Router, error) {
	mode, err := endpoints.ParseMode(r.Mode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Source, err)
	}
	st := &replayState{rec: r, used: make([]bool, len(r.Experts.Calls))}
	var eps []endpoints.Endpoint
	for _, k := range r.Experts.Kinds {
		eps = append(eps, &replayEndpoint{kind: k, st: st})
	}
	return endpoints.NewRouter(mode, eps...), nil
}

// Engine returns an engine that replays the recording with catalog cat
// (see ChooseCatalog) and opts, whose selection options are set as
// recorded.
func (r *Replay) Engine(cat *skills.Catalog, opts pipeline.Options) (*pipeline.Engine, error) {
	router, err := r.Router()
	if err != nil {
		return nil, err
	}
	if r.NumCandidates > 0 {
		opts.NumCandidates = r.NumCandidates
	}
	opts.ControllerTasks = r.ControllerTasks
	// A replay asks the controller exactly when the recording did.
	opts.Selection = r.Selection
	opts.Revise = r.Revise
	return pipeline.New(r.Controller(controller.Options{Logger: opts.Logger}), cat, router, opts), nil
}

// ChooseCatalog returns the first of cats whose digest is the recorded
// one; matched is false when none is, and the first is returned: the
// replay may then number candidates differently and pick other models.
func (r *Replay) ChooseCatalog(cats ...*skills.Catalog) (cat *skills.Catalog, matched bool) {
	for _, c := range cats {
		if c != nil && CatalogDigest(c) == r.Catalog {
			return c, true
		}
	}
	for _, c := range cats {
		if c != nil {
			return c, false
		}
	}
	return nil, false
}

// replayState is shared by a replay's endpoints: which calls were used.
type replayState struct {
	rec  *Replay
	mu   sync.Mutex
	used []bool
}

// take claims the recorded call that answers req: the first unused one of
// the same endpoint, task and model with the same arguments, else the
// first unused one of the same endpoint, task and model (file paths in
// the arguments differ between machines).
func (s *replayState) take(kind skills.EndpointKind, req endpoints.Request) (Call, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pick := -1
	for i, c := range s.rec.Experts.Calls {
		if s.used[i] || c.Kind != kind || c.Task != req.Task || c.Model != req.Model {
			continue
		}
		if maps.Equal(c.Args, req.Args) {
			pick = i
			break
		}
		if pick < 0 {
			pick = i
		}
	}
	if pick < 0 {
		return Call{}, false
	}
	s.used[pick] = true
	return s.rec.Experts.Calls[pick], true
}

// replayEndpoint is one endpoint kind of a replay.
type replayEndpoint struct {
	kind skills.EndpointKind
	st   *replayState
}

func (e *replayEndpoint) Kind() skills.EndpointKind { return e.kind }

// Check answers as the endpoint did while recording. A model it was never
// asked about can serve only if the recording holds a call to it.
func (e *replayEndpoint) Check(_ context.Context, task, model string) error {
	for _, c := range e.st.rec.Experts.Checks {
		if c.Kind == e.kind && c.Task == task && c.Model == model {
			return c.Err.Error()
		}
	}
	if slices.ContainsFunc(e.st.rec.Experts.Calls, func(c Call) bool { return c.Kind == e.kind && c.Task == task && c.Model == model }) {
		return nil
	}
	return fmt.Errorf("%w: %s is not part of the recording %s", endpoints.ErrUnavailable, model, e.st.rec.Source)
}

// Discover offers what the endpoint offered while recording.
func (e *replayEndpoint) Discover(_ context.Context, task string) ([]endpoints.Offer, error) {
	for _, d := range e.st.rec.Experts.Discoveries {
		if d.Kind == e.kind && d.Task == task {
			return slices.Clone(d.Offers), d.Err.Error()
		}
	}
	return nil, nil
}

// Host is the host the recording found down for the endpoint, if it
// found one: the replay skips the candidates the recorded turn skipped.
func (e *replayEndpoint) Host(task, model string) string {
	for _, c := range e.st.rec.Experts.Calls {
		if c.Kind == e.kind && c.Err != nil && c.Err.DownHost != "" {
			return c.Err.DownHost
		}
	}
	return ""
}

// Provider names the provider the endpoint named while recording,
// without the network.
func (e *replayEndpoint) Provider(task, model string) string {
	return e.provider(task, model, false)
}

// ResolveProvider names the provider the endpoint resolved while
// recording (a recording from before resolution: the one it named).
func (e *replayEndpoint) ResolveProvider(_ context.Context, task, model string) string {
	return e.provider(task, model, true)
}

func (e *replayEndpoint) provider(task, model string, resolved bool) string {
	found := ""
	for _, p := range e.st.rec.Experts.Providers {
		if p.Kind == e.kind && p.Task == task && p.Model == model {
			if p.Resolved == resolved {
				return p.Provider
			}
			found = p.Provider
		}
	}
	if resolved {
		return found
	}
	return ""
}

// Infer replays the recorded call: its progress reports at their times,
// then its result when its time is up.
func (e *replayEndpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	c, ok := e.st.take(e.kind, req)
	if !ok {
		return endpoints.Result{}, fmt.Errorf("%w: the recording %s holds no further %s call to %s", endpoints.ErrUnavailable, e.st.rec.Source, req.Task, req.Model)
	}
	pace := e.st.rec.Pace
	var at time.Duration
	for _, p := range c.Progress {
		if err := pace.Wait(ctx, p.After-at); err != nil {
			return endpoints.Result{}, err
		}
		at = p.After
		if req.Progress != nil {
			req.Progress(endpoints.Progress{Message: p.Message, Wait: pace.Scale(p.Wait)})
		}
	}
	if err := pace.Wait(ctx, c.Elapsed-at); err != nil {
		return endpoints.Result{}, err
	}
	// The recorded time, whatever the pace: --replay-speed 0 does not
	// wait, yet the task took what it took.
	if c.Err != nil {
		return endpoints.Result{}, endpoints.WithTook(c.Err.Error(), c.Elapsed)
	}
	res := endpoints.Result{Took: c.Elapsed}
	if c.Result != nil {
		res.Text, res.Data, res.Provider = c.Result.Text, c.Result.Data, c.Result.Provider
		for _, f := range c.Result.Files {
			res.Blobs = append(res.Blobs, endpoints.Blob{MIME: f.MIME, Data: slices.Clone(f.Data)})
		}
	}
	return res, nil
}

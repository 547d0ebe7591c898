package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// Failure cases measure what the revision of a plan (the fifth step,
// pipeline/revise.go) is worth for a controller model: each case's
// request runs as a whole turn — plan, selection, execution, revision,
// answer — on the real controller, with scripted experts: every model of
// the case's Fail skills fails as a model no provider serves, every other
// answers at once with a file or text of its skill's kind. A run served
// the request when every skill of one of the case's Serves sets has a task
// that succeeded; without revision is read from the plan's own tasks (they
// ran before any revision, so a turn with revision off would have ended
// the same), with revision from all of them. The engine's own options
// apply: planner.revise must be 1 or more, and the early answer should be
// off (chorus eval --failures turns it off) — a failure while an early
// answer streams gets a correction line, not a revision, so with it on
// the result would hang on which came first.

// Failures returns the embedded failure suite: requests whose first
// expert fails (a video model down, a captioner down…), most of which
// another skill can still serve, and one no other skill can.
func Failures() (*Suite, error) {
	b, err := suites.ReadFile("suites/failures.json")
	if err != nil {
		return nil, err
	}
	return parseSuite("failures", b)
}

// FailureOptions tune a run of a failure suite.
type FailureOptions struct {
	// Repeat runs every case this many times; at least 1.
	Repeat int
	// Limit runs only the first Limit cases; 0 runs all.
	Limit int
	// Dir receives the inputs and outputs; a temporary directory when
	// empty.
	Dir string
	// Progress, when set, is called after each run.
	Progress func(Progress)
}

// FailureResult is one run of one failure case.
type FailureResult struct {
	Case string `json:"case"`
	Run  int    `json:"run"`
	// Plan names the plan's tasks; Failed the tasks that failed for good;
	// Added the tasks the revision added.
	Plan   []string `json:"plan"`
	Failed []string `json:"failed,omitempty"`
	Added  []string `json:"added,omitempty"`
	// Revised says the controller was asked to revise the plan.
	Revised bool `json:"revised"`
	// ServedWithout and ServedWith say whether the request was served by
	// the plan's own tasks, and by them with the revision's.
	ServedWithout bool `json:"served_without_revision"`
	ServedWith    bool `json:"served_with_revision"`
	// Calls counts the turn's controller calls; LatencyMS is its time.
	Calls     int   `json:"controller_calls"`
	LatencyMS int64 `json:"latency_ms"`
	// Error is why the turn ended without an answer.
	Error string `json:"error,omitempty"`
}

// RunFailures runs every case of s (Repeat times) as a turn on eng's
// controller and catalog with the case's scripted experts. It returns the
// results so far with the error that stopped it (as Run does).
func RunFailures(ctx context.Context, eng *pipeline.Engine, model string, s *Suite, opts FailureOptions) ([]FailureResult, error) {
	opts.Repeat = max(opts.Repeat, 1)
	if eng.Options().Revise < 1 {
		return nil, errors.New("planner.revise is 0, so no plan is revised and there is nothing to compare — set planner.revise: 1 (or CHORUS_PLANNER_REVISE=1)")
	}
	cases := s.Cases
	if opts.Limit > 0 && opts.Limit < len(cases) {
		cases = cases[:opts.Limit]
	}
	for _, c := range cases {
		if len(c.Serves) == 0 {
			return nil, fmt.Errorf("case %s says nothing about what serves it — give \"serves\": [[skill, …], …]", c.ID)
		}
	}
	dir := opts.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "chorus-eval-failures-")
		if err != nil {
			return nil, fmt.Errorf("a directory for the suite's files: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	total := len(cases) * opts.Repeat
	var results []FailureResult
	for run := 1; run <= opts.Repeat; run++ {
		for _, c := range cases {
			if err := ctx.Err(); err != nil {
				return results, fmt.Errorf("%w: %w", pipeline.ErrCancelled, err)
			}
			r, err := runFailure(ctx, eng, c, run, dir)
			if err != nil {
				return results, err
			}
			results = append(results, r)
			if opts.Progress != nil {
				opts.Progress(Progress{Model: model, Done: len(results), Total: total, Case: c.ID})
			}
		}
	}
	return results, nil
}

// runFailure runs one case once. Its error stops the whole run: the
// controller cannot be asked, or the user stopped it.
func runFailure(ctx context.Context, eng *pipeline.Engine, c Case, run int, dir string) (FailureResult, error) {
	r := FailureResult{Case: c.ID, Run: run, Plan: []string{}}
	turn, err := c.Turn(dir)
	if err != nil {
		return r, fmt.Errorf("case %s: %w", c.ID, err)
	}
	scripted := eng.WithRouter(scriptedRouter(eng.Catalog(), c.Fail))
	start := time.Now()
	var revisions int
	rep, err := scripted.Run(ctx, turn, func(ev pipeline.Event) {
		if _, ok := ev.(pipeline.PlanRevisionEvent); ok {
			revisions++
		}
	})
	r.LatencyMS = time.Since(start).Milliseconds()
	if err != nil && (Fatal(err) || ctx.Err() != nil) {
		return r, err
	}
	if err != nil {
		r.Error = err.Error()
	}
	if rep == nil {
		return r, nil
	}
	r.Calls, r.Revised = len(rep.Calls), revisions > 0
	added := map[int]bool{}
	for _, rv := range rep.Revisions {
		for _, t := range rv.Tasks {
			added[t.ID] = true
			r.Added = append(r.Added, t.Task)
		}
	}
	var plan, all []string
	for _, t := range rep.Tasks {
		if !added[t.ID] {
			r.Plan = append(r.Plan, t.Task)
		}
		if t.Status != pipeline.StatusOK {
			if !t.Skipped || !added[t.ID] {
				r.Failed = append(r.Failed, t.Task)
			}
			continue
		}
		all = append(all, t.Task)
		if !added[t.ID] {
			plan = append(plan, t.Task)
		}
	}
	r.ServedWithout, r.ServedWith = served(c.Serves, plan), served(c.Serves, all)
	return r, nil
}

// served reports whether the skills that succeeded cover one set of
// serves.
func served(serves [][]string, ok []string) bool {
	for _, set := range serves {
		if len(set) > 0 && !slices.ContainsFunc(set, func(s string) bool { return !slices.Contains(ok, s) }) {
			return true
		}
	}
	return false
}

// scriptedRouter is a router whose every endpoint kind answers as the
// scripted experts of a failure case.
func scriptedRouter(cat *skills.Catalog, fail []string) *endpoints.Router {
	var eps []endpoints.Endpoint
	for _, k := range []skills.EndpointKind{skills.EndpointBuiltin, skills.EndpointCommand, skills.EndpointLocal, skills.EndpointOpenAI,
		skills.EndpointOllama, skills.EndpointHuggingFace, skills.EndpointRetrieval} {
		eps = append(eps, scriptedExpert{kind: k, cat: cat, fail: fail})
	}
	return endpoints.NewRouter(endpoints.ModeHybrid, eps...)
}

// scriptedExpert answers every model of every skill at once with a
// product of the skill's kind — a picture, a tone, a video header, a line
// of text — but the skills it fails, whose models are down.
type scriptedExpert struct {
	kind skills.EndpointKind
	cat  *skills.Catalog
	fail []string
}

func (x scriptedExpert) Kind() skills.EndpointKind { return x.kind }

func (x scriptedExpert) Check(context.Context, string, string) error { return nil }

// errScriptedDown is the failure of a scripted expert: its model is not
// served, which another candidate or skill may be.
var errScriptedDown = errors.New("the model is down (a scripted failure of the evaluation)")

func (x scriptedExpert) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	if slices.Contains(x.fail, req.Task) {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w: %w", x.kind, req.Model, errScriptedDown, endpoints.ErrUnavailable)
	}
	s, ok := x.cat.Skill(req.Task)
	if !ok {
		return endpoints.Result{}, fmt.Errorf("%w: no skill %s", endpoints.ErrUnavailable, req.Task)
	}
	res := endpoints.Result{Text: fmt.Sprintf("(the scripted %s result of %s)", req.Task, req.Model)}
	for _, m := range s.Outputs {
		var b endpoints.Blob
		switch m {
		case skills.Image:
			f, err := imaging.Encode(picture(), "png")
			if err != nil {
				return endpoints.Result{}, err
			}
			b = endpoints.Blob{MIME: "image/png", Data: f.Data}
		case skills.Audio:
			b = endpoints.Blob{MIME: "audio/wav", Data: wav(8000, 1)}
		case skills.Video:
			b = endpoints.Blob{MIME: "video/mp4", Data: mp4Header()}
		default:
			continue
		}
		res.Blobs = append(res.Blobs, b)
	}
	return res, nil
}

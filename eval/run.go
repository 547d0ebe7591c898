package eval

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline"
)

// Planner runs the planning stage of a turn: pipeline.Engine, whose
// PlanOnly is the real planning stage of a turn.
type Planner interface {
	PlanOnly(ctx context.Context, t pipeline.Turn, selectModels bool) (pipeline.PlanResult, error)
}

// Options tune a run of a suite.
type Options struct {
	// Repeat runs every case this many times (sampling varies between
	// runs at a temperature above 0); at least 1.
	Repeat int
	// Limit runs only the first Limit cases; 0 runs all.
	Limit int
	// Select also runs model selection on each plan.
	Select bool
	// Dir receives the suite's generated input files; a temporary
	// directory (removed afterwards) when empty.
	Dir string
	// Progress, when set, is called after each planning run.
	Progress func(Progress)
	// Tools is the tool list the controller plans from (the catalog's
	// skill names): TaskBench's scoring ignores a predicted name outside
	// it and the suite's gold names. Nil takes every name as a tool.
	Tools []string
}

// Progress says how far a run has come.
type Progress struct {
	Model string
	Done  int
	Total int
	// Case is the id of the case just planned.
	Case string
}

// Result is one planning run of one case.
type Result struct {
	Case  string `json:"case"`
	Shape string `json:"shape"`
	// Run counts the repeats of a case from 1.
	Run   int   `json:"run"`
	Score Score `json:"score"`
	// ValidAsWritten and Usable are the plan's validity before and after
	// Chorus's repair (pipeline.PlanResult).
	ValidAsWritten bool `json:"valid_as_written"`
	Usable         bool `json:"usable"`
	// LatencyMS is the planning stage's wall time, a re-ask included;
	// the tokens are its calls' (prompt: as the server counts it).
	LatencyMS        int64 `json:"latency_ms"`
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	// Plan is the validated plan that was scored: the plan after repair,
	// as a turn would run it.
	Plan []pipeline.Task `json:"plan"`
	// Replies are the controller's raw planning replies (two when the
	// first was re-asked); the first is what "as written" reads.
	Replies []string `json:"replies"`
	// AsWritten is the first reply as TaskBench reads it (inference.py's
	// parse): null when it gives no prediction.
	AsWritten *TBPlan `json:"as_written"`
	// Gold is the gold plan the run was scored against: with
	// alternatives, the one that matches best (GoldAlternative, from 0).
	Gold            []pipeline.Task `json:"gold"`
	GoldAlternative int             `json:"gold_alternative,omitempty"`
	// TaskBench are TaskBench's per-sample counts for both readings.
	TaskBench TBResult `json:"taskbench"`
	// Arguments counts the gold's arguments the plan got right
	// (ArgScore).
	Arguments Rate `json:"arguments"`
	// Constraints are the plan's constraints after repair and
	// GoldConstraints the request's, in the /constrain syntax;
	// ConstraintsRight says whether they match (ConstraintsRight), set
	// only where the request has constraints.
	Constraints      string `json:"constraints,omitempty"`
	GoldConstraints  string `json:"gold_constraints,omitempty"`
	ConstraintsRight *bool  `json:"constraints_right,omitempty"`
	// Notes are the validator's repairs.
	Notes []string `json:"notes,omitempty"`
	// Tasks and Chosen count, with selection, the plan's tasks and those
	// that got a model.
	Tasks  int `json:"tasks,omitempty"`
	Chosen int `json:"chosen,omitempty"`
	// Error is why the controller could not be asked (a timeout); such a
	// run scores as an empty, invalid plan.
	Error string `json:"error,omitempty"`
}

// TBResult is one run's TaskBench counts: AsWritten of the first reply
// (null: no prediction), AfterRepair of the validated plan (null: the
// gold is one evaluate.py cannot read).
type TBResult struct {
	AsWritten   *TBCounts `json:"as_written"`
	AfterRepair *TBCounts `json:"after_repair"`
}

// Fatal reports whether err stops a model's whole run: the server is not
// there or the model is not pulled — every request would fail the same
// way, and the error already names the fix.
func Fatal(err error) bool {
	return errors.Is(err, controller.ErrUnreachable) || errors.Is(err, controller.ErrModelMissing) ||
		errors.Is(err, controller.ErrWrongServer) || errors.Is(err, pipeline.ErrCancelled) || errors.Is(err, context.Canceled)
}

// Run plans every case of s (Repeat times) with p and scores each plan.
// It returns the results so far with the error that stopped it: a
// cancelled context (Ctrl+C) or a Fatal controller error. Any other
// controller error is recorded in its result and the run goes on.
func Run(ctx context.Context, p Planner, model string, s *Suite, opts Options) ([]Result, error) {
	if opts.Repeat < 1 {
		opts.Repeat = 1
	}
	cases := s.Cases
	if opts.Limit > 0 && opts.Limit < len(cases) {
		cases = cases[:opts.Limit]
	}
	dir := opts.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "chorus-eval-")
		if err != nil {
			return nil, fmt.Errorf("a directory for the suite's input files: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	for _, c := range cases {
		if _, err := c.goldConstraints(); err != nil {
			return nil, err
		}
	}
	names := newToolNames(opts.Tools, s)
	total := len(cases) * opts.Repeat
	results := make([]Result, 0, total)
	for run := 1; run <= opts.Repeat; run++ {
		for _, c := range cases {
			if err := ctx.Err(); err != nil {
				return results, fmt.Errorf("%w: %w", pipeline.ErrCancelled, err)
			}
			turn, err := c.Turn(dir)
			if err != nil {
				return results, fmt.Errorf("case %s: %w", c.ID, err)
			}
			res, err := p.PlanOnly(ctx, turn, opts.Select)
			if err != nil && (Fatal(err) || ctx.Err() != nil) {
				return results, err
			}
			r := score(c, run, res, err, names)
			results = append(results, r)
			if opts.Progress != nil {
				opts.Progress(Progress{Model: model, Done: len(results), Total: total, Case: c.ID})
			}
		}
	}
	return results, nil
}

// toolNames is the tool list for TaskBench's scoring: tools and every
// gold name of the suite (TaskBench's gold names are always tools).
type toolNames map[string]bool

func newToolNames(tools []string, s *Suite) toolNames {
	if tools == nil {
		return nil
	}
	n := toolNames{}
	for _, t := range tools {
		n[t] = true
	}
	for _, c := range s.Cases {
		for _, g := range c.golds() {
			for _, t := range g {
				n[t.Task] = true
			}
		}
		if tb, ok := c.TaskBenchGold(); ok {
			for _, t := range tb.Nodes {
				n[t] = true
			}
		}
	}
	return n
}

func (n toolNames) known(name string) bool { return n == nil || n[name] }

// written maps a task name as a model wrote it onto the suite's names the
// way the TaskBench loader maps the gold's ("Image Classification" is
// image-classification); anything else stays as written.
func (n toolNames) written(name string) string {
	if n.known(name) {
		return name
	}
	if norm := taskBenchSpelling(name); n.known(norm) {
		return norm
	}
	return name
}

// score turns one planning run into a Result.
func score(c Case, run int, res pipeline.PlanResult, err error, names toolNames) Result {
	r := Result{Case: c.ID, Shape: c.Shape, Run: run, LatencyMS: res.PlanElapsed.Milliseconds(), Replies: res.Replies}
	for _, call := range res.Calls {
		if call.Stage == pipeline.StagePlanning {
			r.PromptTokens += call.PromptTokens
			r.CompletionTokens += call.Tokens
		}
	}
	if r.Replies == nil {
		r.Replies = []string{}
	}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.ValidAsWritten, r.Usable = res.ValidAsWritten, res.Usable
		r.Plan, r.Notes = res.Plan.Tasks, res.Plan.Notes
		if !res.Plan.Constraints.IsZero() {
			r.Constraints = res.Plan.Constraints.String()
		}
		r.Tasks = len(res.Plan.Tasks)
		for _, m := range res.Models {
			if m.Model != "" {
				r.Chosen++
			}
		}
	}
	golds := c.golds()
	pred := GraphOf(r.Plan)
	for i, g := range golds {
		sc := Compare(GraphOf(g), pred)
		if i == 0 || better(sc, r.Score) {
			r.Score, r.Gold, r.GoldAlternative = sc, g, i
		}
	}
	if r.Gold == nil {
		r.Gold = []pipeline.Task{}
	}
	r.Arguments = ArgScore(r.Gold, r.Plan)
	if gold, _ := c.goldConstraints(); !gold.IsZero() {
		// Run checked that they read.
		right := err == nil && ConstraintsRight(gold, res.Plan.Constraints)
		r.GoldConstraints, r.ConstraintsRight = gold.String(), &right
	}
	if len(r.Replies) > 0 {
		if obj, ok := TBReadReply(r.Replies[0]); ok {
			if p, ok := TBPrediction(obj, names.written); ok {
				r.AsWritten = &p
			}
		}
	}
	tbGolds := []TBPlan{}
	if tb, ok := c.TaskBenchGold(); ok {
		tbGolds = append(tbGolds, tb)
		for _, alt := range c.Alternatives {
			tbGolds = append(tbGolds, TBGold(alt))
		}
	}
	if len(tbGolds) > 0 {
		// The after-repair reading uses the alternative Chorus's own
		// score chose; the as-written one, the best for it.
		after := TBCompare(tbGolds[min(r.GoldAlternative, len(tbGolds)-1)], TBGold(r.Plan), names.known)
		r.TaskBench.AfterRepair = &after
		if r.AsWritten != nil {
			for i, g := range tbGolds {
				tc := TBCompare(g, *r.AsWritten, names.known)
				if i == 0 || tc.better(*r.TaskBench.AsWritten) {
					r.TaskBench.AsWritten = &tc
				}
			}
		}
	}
	return r
}

// better orders two scores of one plan against two gold alternatives:
// the right flow first, then the smaller edit distance, then more
// matched nodes and edges.
func better(a, b Score) bool {
	if a.FoT != b.FoT {
		return a.FoT
	}
	if a.GEDNorm != b.GEDNorm {
		return a.GEDNorm < b.GEDNorm
	}
	return a.MatchedNodes+a.MatchedEdges > b.MatchedNodes+b.MatchedEdges
}

// better orders one prediction's TaskBench counts against two gold
// alternatives: more right than wrong, then the higher ratio.
func (c TBCounts) better(o TBCounts) bool {
	net := func(x TBCounts) int { return x.NodeTP + x.LinkTP - x.NodeFP - x.NodeFN - x.LinkFP - x.LinkFN }
	if net(c) != net(o) {
		return net(c) > net(o)
	}
	return c.Ratio > o.Ratio
}

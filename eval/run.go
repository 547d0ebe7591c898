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
	// Plan is the validated plan that was scored.
	Plan []pipeline.Task `json:"plan"`
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
			r := score(c, run, res, err)
			results = append(results, r)
			if opts.Progress != nil {
				opts.Progress(Progress{Model: model, Done: len(results), Total: total, Case: c.ID})
			}
		}
	}
	return results, nil
}

// score turns one planning run into a Result.
func score(c Case, run int, res pipeline.PlanResult, err error) Result {
	r := Result{Case: c.ID, Shape: c.Shape, Run: run, LatencyMS: res.PlanElapsed.Milliseconds()}
	for _, call := range res.Calls {
		if call.Stage == pipeline.StagePlanning {
			r.PromptTokens += call.PromptTokens
			r.CompletionTokens += call.Tokens
		}
	}
	if err != nil {
		r.Error = err.Error()
		r.Score = Compare(GraphOf(c.Gold), Graph{})
		return r
	}
	r.ValidAsWritten, r.Usable = res.ValidAsWritten, res.Usable
	r.Plan, r.Notes = res.Plan.Tasks, res.Plan.Notes
	r.Score = Compare(GraphOf(c.Gold), GraphOf(res.Plan.Tasks))
	r.Tasks = len(res.Plan.Tasks)
	for _, m := range res.Models {
		if m.Model != "" {
			r.Chosen++
		}
	}
	return r
}

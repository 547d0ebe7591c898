package pipeline_test

import "github.com/chorusai/chorus/pipeline"

// benchEngineOptions is o with what config.yaml turns on by default and the
// engine's zero options leave off: the early answer (response.early) and one
// revision of a plan whose task failed (planner.revise: 1) — a turn whose
// tasks all succeed must make no call more for it (ctl-calls/turn).
func benchEngineOptions(o pipeline.Options) pipeline.Options {
	o.EarlyAnswer = true
	o.Revise = 1
	return o
}

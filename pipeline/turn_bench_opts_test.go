package pipeline_test

import "github.com/chorusai/chorus/pipeline"

// benchEngineOptions is o with what config.yaml turns on by default and the
// engine's zero options leave off: the early answer (response.early).
func benchEngineOptions(o pipeline.Options) pipeline.Options {
	o.EarlyAnswer = true
	return o
}

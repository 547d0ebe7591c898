// Package pipelinetest is for tests of what shows a turn: event streams
// as the pipeline sends them, shared by the TUI's tests and its turn
// view's, so both assert against the same turn.
package pipelinetest

import "github.com/chorusai/chorus/pipeline"

// ImageTurn is a turn caught mid-run: planning done (four tasks, one
// note of a dropped task), task 1's model chosen among two with one
// excluded by licence, task 1 started on Hugging Face and waiting 17 s
// for its model to load; tasks 2–4 not yet selected.
func ImageTurn() []pipeline.Event {
	return []pipeline.Event{
		pipeline.StageEvent{Stage: pipeline.StagePlanning},
		pipeline.PlanEvent{Tasks: []pipeline.Task{
			{ID: 1, Task: "text-to-image", Args: map[string]string{"text": "a red fox in the snow"}},
			{ID: 2, Task: "object-detection", Dep: []int{1}, Args: map[string]string{"image": "<resource>-1"}},
			{ID: 3, Task: "image-to-text", Dep: []int{1}, Args: map[string]string{"image": "<GENERATED>-1"}},
			{ID: 4, Task: "draw-boxes", Dep: []int{1, 2}, Args: map[string]string{"image": "<resource>-1", "text": "<resource>-2"}},
		}, Notes: []string{"task 5 dropped: unknown task"}},
		pipeline.ModelEvent{ID: 1, Task: "text-to-image", Model: "stabilityai/sdxl", Endpoint: "huggingface", Decided: "controller choice",
			Reason: "best quality for photos", Candidates: []pipeline.Candidate{{ID: "stabilityai/sdxl"}, {ID: "runwayml/sd-1.5"}},
			Excluded: []pipeline.Exclusion{{ID: "big/model", Reason: "licence cc-by-nc is not in the allow-list"}}},
		pipeline.TaskStartEvent{ID: 1, Task: "text-to-image", Model: "stabilityai/sdxl", Endpoint: "huggingface"},
		pipeline.TaskProgressEvent{ID: 1, Message: "model is loading", WaitMS: 17000},
	}
}

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

// RevisedTurn is a turn whose plan was revised (the fifth step), caught
// while the revision's tasks run: task 1 (image-to-text) failed on every
// model, its reader task 2 was skipped, the revision added task 3
// (visual-question-answering, done) and task 4 (text-to-speech of task
// 3's answer, running), with a note.
func RevisedTurn() []pipeline.Event {
	return []pipeline.Event{
		pipeline.StageEvent{Stage: pipeline.StagePlanning},
		pipeline.PlanEvent{Tasks: []pipeline.Task{
			{ID: 1, Task: "image-to-text", Dep: []int{}, Args: map[string]string{"image": "/home/ann/dog.png"}},
			{ID: 2, Task: "text-to-speech", Dep: []int{1}, Args: map[string]string{"text": "<resource>-1"}},
		}},
		pipeline.StageEvent{Stage: pipeline.StageSelection},
		pipeline.ModelEvent{ID: 1, Task: "image-to-text", Model: "blip-large", Endpoint: "huggingface", Decided: "only candidate"},
		pipeline.ModelEvent{ID: 2, Task: "text-to-speech", Model: "espeak-ng", Endpoint: "command", Decided: "only candidate"},
		pipeline.StageEvent{Stage: pipeline.StageExecution},
		pipeline.TaskStartEvent{ID: 1, Task: "image-to-text", Model: "blip-large", Endpoint: "huggingface"},
		pipeline.TaskEndEvent{ID: 1, Task: "image-to-text", Status: pipeline.StatusError, Model: "blip-large", Endpoint: "huggingface",
			Error: "HTTP 500: CUDA out of memory", ElapsedMS: 900},
		pipeline.TaskEndEvent{ID: 2, Task: "text-to-speech", Status: pipeline.StatusError, Skipped: true, Error: "not run: task 1 (image-to-text) failed"},
		pipeline.StageEvent{Stage: pipeline.StageRevision},
		pipeline.PlanRevisionEvent{Revision: pipeline.Revision{
			After: []pipeline.FailedTask{{ID: 1, Task: "image-to-text", Error: "HTTP 500: CUDA out of memory"}},
			Tasks: []pipeline.Task{
				{ID: 3, Task: "visual-question-answering", Dep: []int{}, Args: map[string]string{"image": "/home/ann/dog.png", "text": "What does it show?"}},
				{ID: 4, Task: "text-to-speech", Dep: []int{3}, Args: map[string]string{"text": "<resource>-3"}},
			},
			Notes: []string{"task 1 (visual-question-answering) of the revision took the id of a task already in the plan; numbered it 3"},
		}},
		pipeline.StageEvent{Stage: pipeline.StageSelection},
		pipeline.ModelEvent{ID: 3, Task: "visual-question-answering", Model: "vilt", Endpoint: "huggingface", Decided: "only candidate"},
		pipeline.ModelEvent{ID: 4, Task: "text-to-speech", Model: "espeak-ng", Endpoint: "command", Decided: "only candidate"},
		pipeline.StageEvent{Stage: pipeline.StageExecution},
		pipeline.TaskStartEvent{ID: 3, Task: "visual-question-answering", Model: "vilt", Endpoint: "huggingface"},
		pipeline.TaskEndEvent{ID: 3, Task: "visual-question-answering", Status: pipeline.StatusOK, Model: "vilt", Endpoint: "huggingface", Result: "a dog", ElapsedMS: 700},
		pipeline.TaskStartEvent{ID: 4, Task: "text-to-speech", Model: "espeak-ng", Endpoint: "command"},
	}
}

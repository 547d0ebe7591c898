package conversation

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

func day(h, m int) time.Time { return time.Date(2025, 3, 1, h, m, 0, 0, time.UTC) }

func TestRecorderAnsweredTurn(t *testing.T) {
	r := newRecordBuilder("caption /in/cat.png", "", []string{"/in/cat.png"}, day(9, 0))
	plan := []pipeline.Task{{ID: 1, Task: "image-to-text", Dep: []int{-1}, Args: map[string]string{"image": "/in/cat.png"}}}
	for _, ev := range []pipeline.Event{
		pipeline.StageEvent{Stage: pipeline.StagePlanning},
		pipeline.PlanEvent{Tasks: plan, Notes: []string{"repaired"}},
		pipeline.ModelEvent{ID: 1, Task: "image-to-text", Model: "blip", Endpoint: "huggingface"},
		pipeline.TaskEndEvent{ID: 1, Task: "image-to-text", Status: pipeline.StatusOK, Files: []string{"/out/boxes.png"}},
		pipeline.ErrorEvent{Stage: pipeline.StageExecution, Message: "a task failed"},
		pipeline.AnswerEvent{Text: "A cat."},
		pipeline.ReportEvent{Report: pipeline.Report{Answer: "A cat.", Files: []string{"/out/boxes.png"}}},
	} {
		r.observe(ev)
	}
	got, _ := r.finish(&pipeline.Report{Answer: "A cat.", Files: []string{"/out/boxes.png"}}, nil, day(9, 1))
	want := Record{
		Request: "caption /in/cat.png", Attachments: []string{"/in/cat.png"}, Answer: "A cat.",
		Plan: plan, PlanNotes: []string{"repaired"}, Planned: true,
		Models:    []pipeline.ModelEvent{{ID: 1, Task: "image-to-text", Model: "blip", Endpoint: "huggingface"}},
		Report:    &pipeline.Report{Answer: "A cat.", Files: []string{"/out/boxes.png"}},
		Resources: []string{"/in/cat.png", "/out/boxes.png"},
		Started:   day(9, 0), Finished: day(9, 1),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("record\n got %+v\nwant %+v", got, want)
	}
	s := &sessions.Session{}
	s.AddTurn(got)
	h := s.History()
	if len(h) != 2 || h[1].Content != "A cat." || !reflect.DeepEqual(h[1].Resources, []string{"/out/boxes.png"}) {
		t.Fatalf("history = %+v", h)
	}
}

func TestRecorderFailedAndCancelledTurns(t *testing.T) {
	r := newRecordBuilder("hi", "", nil, day(9, 0))
	r.observe(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: "the controller could not plan", Fatal: true})
	got, _ := r.finish(nil, errors.New("Ollama is not reachable"), day(9, 1))
	if got.Error != "the controller could not plan (Ollama is not reachable)" || got.Cancelled || got.Planned {
		t.Fatalf("failed turn = %+v", got)
	}

	r = newRecordBuilder("hi", "", nil, day(9, 0))
	r.observe(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: "Ollama is not reachable", Fatal: true})
	if got, _ := r.finish(nil, errors.New("Ollama is not reachable"), day(9, 1)); got.Error != "Ollama is not reachable" {
		t.Fatalf("an error the event already says is repeated: %q", got.Error)
	}

	r = newRecordBuilder("draw a cat", "", nil, day(9, 0))
	r.observe(pipeline.TaskEndEvent{ID: 1, Files: []string{"/out/half.png"}})
	got, _ = r.finish(nil, fmt.Errorf("turn: %w", pipeline.ErrCancelled), day(9, 1))
	if !got.Cancelled || got.Error != "" || !reflect.DeepEqual(got.Resources, []string{"/out/half.png"}) {
		t.Fatalf("cancelled turn = %+v", got)
	}
	s := &sessions.Session{}
	s.AddTurn(got)
	if h := s.History(); len(h) != 2 || h[1].Content != "(cancelled by the user before an answer)" {
		t.Fatalf("history = %+v", h)
	}
}

// TestRecorderKeepsNamedMedia: a media file whose path the user typed is
// kept as the turn's resource — the user's, not a generated one — so the
// chat log offers it to later turns as it does an attachment.
func TestRecorderKeepsNamedMedia(t *testing.T) {
	r := newRecordBuilder("what is in /in/dock.png?", "", nil, day(9, 0))
	rep := &pipeline.Report{Request: "what is in /in/dock.png?", Named: []string{"/in/dock.png"}, Files: []string{"/out/caption.txt"}, Answer: "A dock."}
	turn, _ := r.finish(rep, nil, day(9, 1))
	if !slices.Equal(turn.Resources, []string{"/in/dock.png", "/out/caption.txt"}) {
		t.Fatalf("resources %v", turn.Resources)
	}
	if g := turn.Generated(); !slices.Equal(g, []string{"/out/caption.txt"}) {
		t.Errorf("generated %v: a named file is the user's, not generated", g)
	}
	var s sessions.Session
	s.AddTurn(turn)
	h := s.History()
	if len(h) != 2 || !slices.Equal(h[0].Resources, []string{"/in/dock.png"}) || !slices.Equal(h[1].Resources, []string{"/out/caption.txt"}) {
		t.Fatalf("history %+v", h)
	}
}

// TestRecorderKeepsTheLatestChoicePerTask: a task chosen for twice (a
// ranked pick, then the controller's) is recorded once, with the last
// choice, in the order the tasks were first chosen for.
func TestRecorderKeepsTheLatestChoicePerTask(t *testing.T) {
	r := newRecordBuilder("two tasks", "the piped data", nil, day(9, 0))
	r.observe(pipeline.ModelEvent{ID: 2, Task: "ocr", Model: "tesseract"})
	r.observe(pipeline.ModelEvent{ID: 1, Task: "image-to-text", Model: "blip", Decided: "ranked"})
	r.observe(pipeline.ModelEvent{ID: 1, Task: "image-to-text", Model: "git-large", Decided: "controller"})
	got, ok := r.finish(nil, nil, day(9, 1))
	if !ok || got.Input != "the piped data" || len(got.Models) != 2 || got.Models[0].Model != "tesseract" || got.Models[1].Model != "git-large" {
		t.Fatalf("record: %+v", got)
	}
	if _, ok := r.finish(nil, nil, day(9, 2)); ok {
		t.Fatal("a record was taken twice")
	}
}

// TestRecorderPlanTurnedDownInReview: the plan the user turned down is
// kept, and the turn is cancelled (the user's choice), not failed.
func TestRecorderPlanTurnedDownInReview(t *testing.T) {
	r := newRecordBuilder("draw a cat", "", nil, day(9, 0))
	plan := pipeline.Plan{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-image", Args: map[string]string{"text": "a cat"}}}}
	r.reviewing(plan)
	r.reviewed(errors.New("the plan was cancelled in review"))
	r.observe(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: "plan not run: the plan was cancelled in review", Fatal: true})
	got, _ := r.finish(&pipeline.Report{}, errors.New("plan not run: the plan was cancelled in review"), day(9, 1))
	if !got.Cancelled || got.Error != "" || !got.Planned || len(got.Plan) != 1 {
		t.Fatalf("record: %+v", got)
	}
}

// A task that started while the plan streamed and was withdrawn by the
// final plan leaves no model and no file in the record.
func TestRecorderForgetsWithdrawnTasks(t *testing.T) {
	r := newRecordBuilder("caption it", "", nil, day(9, 0))
	early := pipeline.Task{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "/in/a.png"}}
	final := pipeline.Task{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "/in/b.png"}}
	for _, ev := range []pipeline.Event{
		pipeline.PlanTaskEvent{Task: early},
		pipeline.ModelEvent{ID: 1, Task: "image-to-text", Model: "blip"},
		pipeline.TaskEndEvent{ID: 1, Task: "image-to-text", Status: pipeline.StatusOK, Files: []string{"/out/early.txt"}},
		pipeline.TaskWithdrawnEvent{ID: 1, Task: "image-to-text", Reason: "the final plan changed it"},
		pipeline.PlanEvent{Tasks: []pipeline.Task{final}},
		pipeline.ModelEvent{ID: 2, Task: "ocr", Model: "tesseract"},
		pipeline.ModelEvent{ID: 1, Task: "image-to-text", Model: "git"},
		pipeline.TaskEndEvent{ID: 1, Task: "image-to-text", Status: pipeline.StatusOK, Files: []string{"/out/final.txt"}},
	} {
		r.observe(ev)
	}
	got, _ := r.finish(nil, errors.New("controller went away"), day(9, 1))
	if len(got.Models) != 2 || got.Models[0].Model != "tesseract" || got.Models[1].Model != "git" {
		t.Fatalf("models = %+v", got.Models)
	}
	if !slices.Equal(got.Resources, []string{"/out/final.txt"}) {
		t.Fatalf("resources = %q", got.Resources)
	}
}

// TestRecorderKeepsAPartialAnswer: a turn cancelled while its answer
// streamed keeps the part that arrived.
func TestRecorderKeepsAPartialAnswer(t *testing.T) {
	r := newRecordBuilder("long one", "", nil, day(9, 0))
	r.observe(pipeline.TokenEvent{Text: "A par"})
	r.observe(pipeline.TokenEvent{Text: "tial"})
	got, _ := r.finish(nil, pipeline.ErrCancelled, day(9, 1))
	if !got.Cancelled || got.Answer != "A partial" {
		t.Fatalf("record: %+v", got)
	}
}

// TestRecorderKeepsRevisions: a plan_revision event is the saved turn's,
// with the tasks it added; a cancelled turn keeps the revision it made.
func TestRecorderKeepsRevisions(t *testing.T) {
	rev := pipeline.Revision{After: []pipeline.FailedTask{{ID: 1, Task: "text-to-video", Error: "all 3 attempts failed"}},
		Tasks: []pipeline.Task{{ID: 2, Task: "text-to-image", Dep: []int{}, Args: map[string]string{"text": "a fox"}}}}
	r := newRecordBuilder("a video of a fox", "", nil, day(9, 0))
	for _, ev := range []pipeline.Event{
		pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-video"}}},
		pipeline.TaskEndEvent{ID: 1, Task: "text-to-video", Status: pipeline.StatusError, Error: "all 3 attempts failed"},
		pipeline.StageEvent{Stage: pipeline.StageRevision},
		pipeline.PlanRevisionEvent{Revision: rev},
		pipeline.TaskEndEvent{ID: 2, Task: "text-to-image", Status: pipeline.StatusError, Cancelled: true, Error: "cancelled"},
	} {
		r.observe(ev)
	}
	got, _ := r.finish(nil, pipeline.ErrCancelled, day(9, 1))
	if !got.Cancelled || !reflect.DeepEqual(got.Revisions, []pipeline.Revision{rev}) || len(got.Plan) != 1 {
		t.Fatalf("record = %+v", got)
	}
}

// TestRecorderRevisionReview: a revision shown for review is not the
// turn's plan, and turning it down does not turn the turn down.
func TestRecorderRevisionReview(t *testing.T) {
	r := newRecordBuilder("a video of a fox", "", nil, day(9, 0))
	plan := pipeline.Plan{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-video"}}}
	r.reviewing(plan)
	r.reviewed(nil)
	r.reviewing(pipeline.Plan{Tasks: []pipeline.Task{{ID: 2, Task: "text-to-image"}}})
	r.reviewed(errors.New("not that"))
	got, _ := r.finish(&pipeline.Report{}, errors.New("the controller went away"), day(9, 1))
	if !reflect.DeepEqual(got.Plan, plan.Tasks) || got.Cancelled || got.Error == "" {
		t.Fatalf("record = %+v", got)
	}
}

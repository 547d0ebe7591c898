package conversation

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/pipeline"
)

// recordBuilder reduces one turn's event stream to its saved record: the one
// reducer every front end's turns go through. Observe every event in
// order, then finish with what Engine.Run returned. It is safe for
// concurrent use: the engine's goroutine observes while a closing chat may
// abandon the turn.
type recordBuilder struct {
	mu   sync.Mutex
	turn Record
	// models are the tasks' model choices, the latest per task, in the
	// order the tasks were first chosen for.
	models []pipeline.ModelEvent
	fatal  []string // fatal error events' messages, in order
	files  []string // files of finished tasks, for a turn without a report
	// fileOf maps each of files to its task's id.
	fileOf map[string]int
	// streamed is the answer as it streamed, kept when the turn ends
	// before the whole answer (cancelled mid-answer).
	streamed strings.Builder
	// rejected is set when the user turned the plan down in review;
	// reviews counts the reviews (the plan's, then revisions').
	rejected bool
	reviews  int
	// done is set once the record was taken (finish or abandon).
	done bool
}

// newRecorder starts the record of a turn asking request, with the data
// the user passed with it (piped stdin) and attachments (full paths),
// begun at started.
func newRecordBuilder(request, input string, attachments []string, started time.Time) *recordBuilder {
	return &recordBuilder{turn: Record{Request: request, Input: input, Attachments: slices.Clone(attachments), Started: started}}
}

// observe records what ev tells about the turn.
func (r *recordBuilder) observe(ev pipeline.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case pipeline.PlanEvent:
		r.turn.Plan, r.turn.PlanNotes, r.turn.Planned = ev.Tasks, ev.Notes, true
	case pipeline.PlanRevisionEvent:
		r.turn.Revisions = append(r.turn.Revisions, ev.Revision)
	case pipeline.ModelEvent:
		if i := slices.IndexFunc(r.models, func(m pipeline.ModelEvent) bool { return m.ID == ev.ID }); i >= 0 {
			r.models[i] = ev
		} else {
			r.models = append(r.models, ev)
		}
	case pipeline.TaskEndEvent:
		r.files = append(r.files, ev.Files...)
		if r.fileOf == nil {
			r.fileOf = map[string]int{}
		}
		for _, f := range ev.Files {
			r.fileOf[f] = ev.ID
		}
	case pipeline.TaskWithdrawnEvent:
		// Started while the plan streamed, not kept by the final plan:
		// its model and files are not the turn's.
		r.models = slices.DeleteFunc(r.models, func(m pipeline.ModelEvent) bool { return m.ID == ev.ID })
		r.files = slices.DeleteFunc(r.files, func(f string) bool { id, ok := r.fileOf[f]; return ok && id == ev.ID })
	case pipeline.TokenEvent:
		r.streamed.WriteString(ev.Text)
	case pipeline.AnswerEvent:
		r.turn.Answer = ev.Text
	case pipeline.ErrorEvent:
		if ev.Fatal && ev.Message != "" {
			r.fatal = append(r.fatal, ev.Message)
		}
	case pipeline.ReportEvent:
		rep := ev.Report
		r.turn.Report = &rep
	}
}

// reviewing records the plan put up for review: if the user turns it
// down, the session still shows what was proposed. A later review is of
// a revision, which its plan_revision event records.
func (r *recordBuilder) reviewing(p pipeline.Plan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reviews++
	if r.reviews == 1 {
		r.turn.Plan, r.turn.PlanNotes, r.turn.Planned = p.Tasks, p.Notes, true
	}
}

// reviewed records the review's outcome: an error turns the plan down. A
// revision turned down leaves the turn to its answer.
func (r *recordBuilder) reviewed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reviews <= 1 {
		r.rejected = err != nil
	}
}

// finish completes the record with the turn's report and error, as
// Engine.Run returned them, at finished. A cancelled turn (or one whose
// plan the user turned down) is marked so; a failed one keeps why, in the
// words its fatal error event used. ok is false when the record was
// already taken (the chat closed and abandoned the turn).
func (r *recordBuilder) finish(rep *pipeline.Report, err error, finished time.Time) (rec Record, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return Record{}, false
	}
	r.done = true
	t := r.turn
	if t.Answer == "" {
		t.Answer = r.streamed.String()
	}
	t.Finished = finished
	t.Models = slices.Clone(r.models)
	if rep != nil {
		t.Report = rep
	}
	switch {
	case errors.Is(err, pipeline.ErrCancelled), err != nil && r.rejected:
		t.Cancelled = true
	case err != nil:
		t.Error = failure(err, r.fatal)
	}
	files := r.files
	if t.Report != nil && len(t.Report.Files) > 0 {
		files = t.Report.Files
	}
	t.Resources = append(t.UserFiles(), files...)
	return t, true
}

// abandon takes the record of a turn that did not end in time as
// cancelled, with what it had; false when it was already taken.
func (r *recordBuilder) abandon(now time.Time) (Record, bool) {
	return r.finish(nil, pipeline.ErrCancelled, now)
}

// failure is the text of a failed turn: the error, led by the first fatal
// event's message when the error does not already say it.
func failure(err error, fatal []string) string {
	msg := err.Error()
	for _, f := range fatal {
		if !strings.Contains(msg, f) {
			return f + " (" + msg + ")"
		}
	}
	return msg
}

package sessions

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline"
)

// Recorder builds the saved form of a turn from its event stream, for a
// caller that keeps no turn state of its own (chorus run). Observe every
// event in order, then Finish with what Engine.Run returned.
//
// The TUI keeps richer state for its panes and builds its records from
// that; both give a Turn whose History reads the same.
type Recorder struct {
	turn  Turn
	fatal []string // fatal error events' messages, in order
	files []string // files of finished tasks, for a turn without a report
	// fileOf maps each of files to its task's id.
	fileOf map[string]int
}

// NewRecorder starts the record of a turn asking request with attachments
// (full paths), begun at started.
func NewRecorder(request string, attachments []string, started time.Time) *Recorder {
	return &Recorder{turn: Turn{Request: request, Attachments: slices.Clone(attachments), Started: started}}
}

// SetInput records the data the user passed with the request (piped
// stdin), kept apart from the request so it never counts as typed.
func (r *Recorder) SetInput(input string) { r.turn.Input = input }

// Observe records what ev tells about the turn.
func (r *Recorder) Observe(ev pipeline.Event) {
	switch ev := ev.(type) {
	case pipeline.PlanEvent:
		r.turn.Plan, r.turn.PlanNotes, r.turn.Planned = ev.Tasks, ev.Notes, true
	case pipeline.ModelEvent:
		r.turn.Models = append(r.turn.Models, ev)
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
		r.turn.Models = slices.DeleteFunc(r.turn.Models, func(m pipeline.ModelEvent) bool { return m.ID == ev.ID })
		r.files = slices.DeleteFunc(r.files, func(f string) bool { id, ok := r.fileOf[f]; return ok && id == ev.ID })
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

// Finish completes the record with the turn's report and error, as
// Engine.Run returned them, at finished. A cancelled turn is marked so; a
// failed one keeps why, in the words its fatal error event used.
func (r *Recorder) Finish(rep *pipeline.Report, err error, finished time.Time) Turn {
	t := r.turn
	t.Finished = finished
	if rep != nil {
		t.Report = rep
	}
	switch {
	case errors.Is(err, pipeline.ErrCancelled):
		t.Cancelled = true
	case err != nil:
		t.Error = failure(err, r.fatal)
	}
	files := r.files
	if t.Report != nil && len(t.Report.Files) > 0 {
		files = t.Report.Files
	}
	t.Resources = append(t.UserFiles(), files...)
	return t
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

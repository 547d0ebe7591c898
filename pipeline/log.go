package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline/flow"
)

// The log file is for a maintainer reading a user's report: what a turn
// asked of which stage, model and endpoint, how long each took, and what
// failed. It never holds the controller's prompts or replies, results or
// file contents — they may quote the user's files — only their sizes; the
// request itself is logged at debug level only.

// logStart records a turn's start.
func (tr *turnRun) logStart() {
	ctx, t, log := tr.ctx, tr.t, tr.e.opts.Logger
	log.LogAttrs(ctx, slog.LevelInfo, "turn started", slog.String("controller", tr.e.ctl.Model()),
		slog.Int("request_chars", len(t.Request)), slog.Int("input_chars", len(t.Input)), slog.Int("attachments", len(t.Attachments)),
		slog.Int("history", len(t.History)), slog.String("constraints", t.Constraints.String()),
		slog.Bool("plan_only", t.PlanOnly), slog.Bool("review", t.Review != nil))
	log.LogAttrs(ctx, slog.LevelDebug, "turn request", slog.String("request", t.Request),
		slog.String("attachments", strings.Join(t.Attachments, ", ")))
}

// logEnd records how a turn ended.
func (e *Engine) logEnd(ctx context.Context, rep *flow.Report, err error, elapsed time.Duration) {
	attrs := []slog.Attr{slog.Duration("elapsed", elapsed)}
	if rep != nil {
		attrs = append(attrs, slog.Int("tasks", len(rep.Tasks)), slog.Int("files", len(rep.Files)), slog.Int("answer_chars", len(rep.Answer)))
	}
	level := slog.LevelInfo
	switch {
	case errors.Is(err, flow.ErrCancelled):
		attrs = append(attrs, slog.Bool("cancelled", true))
	case err != nil:
		level = slog.LevelError
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	e.opts.Logger.LogAttrs(ctx, level, "turn finished", attrs...)
}

// logEvents passes every event on to emit after logging what it says.
func logEvents(ctx context.Context, log *slog.Logger, emit flow.Emit) flow.Emit {
	return func(ev flow.Event) {
		logEvent(ctx, log, ev)
		if emit != nil {
			emit(ev)
		}
	}
}

func logEvent(ctx context.Context, log *slog.Logger, ev flow.Event) {
	switch e := ev.(type) {
	case flow.StageEvent:
		log.LogAttrs(ctx, slog.LevelInfo, "stage", slog.String("stage", string(e.Stage)))
	case flow.PlanEvent:
		names := make([]string, len(e.Tasks))
		for i, t := range e.Tasks {
			names[i] = t.Task
		}
		log.LogAttrs(ctx, slog.LevelInfo, "plan", slog.Int("tasks", len(e.Tasks)), slog.String("task_names", strings.Join(names, ",")),
			slog.Int("notes", len(e.Notes)), slog.String("constraints", e.Constraints.String()))
		for _, n := range e.Notes {
			log.LogAttrs(ctx, slog.LevelDebug, "plan note", slog.String("note", n))
		}
	case flow.PlanTaskEvent:
		log.LogAttrs(ctx, slog.LevelInfo, "plan task arrived", slog.Int("id", e.Task.ID), slog.String("task", e.Task.Task),
			slog.Int("deps", len(e.Task.Dep)))
	case flow.PlanRevisionEvent:
		failed := make([]string, len(e.After))
		for i, f := range e.After {
			failed[i] = fmt.Sprintf("%d:%s", f.ID, f.Task)
		}
		names := make([]string, len(e.Tasks))
		for i, t := range e.Tasks {
			names[i] = fmt.Sprintf("%d:%s", t.ID, t.Task)
		}
		log.LogAttrs(ctx, slog.LevelInfo, "plan revised", slog.String("after", strings.Join(failed, ",")),
			slog.Int("tasks", len(e.Tasks)), slog.String("task_names", strings.Join(names, ",")), slog.Int("notes", len(e.Notes)))
		for _, n := range e.Notes {
			log.LogAttrs(ctx, slog.LevelDebug, "revision note", slog.String("note", n))
		}
	case flow.TaskWithdrawnEvent:
		// A task that started early is cancelled, its result unused.
		log.LogAttrs(ctx, slog.LevelInfo, "task withdrawn", slog.Int("id", e.ID), slog.String("task", e.Task), slog.String("why", e.Reason))
	case flow.ModelReasonEvent:
		log.LogAttrs(ctx, slog.LevelDebug, "model reason", slog.Int("id", e.ID), slog.Int("chars", len(e.Reason)))
	case flow.ModelEvent:
		log.LogAttrs(ctx, slog.LevelInfo, "model chosen", slog.Int("id", e.ID), slog.String("task", e.Task),
			slog.String("model", e.Model), slog.String("endpoint", e.Endpoint), slog.String("provider", e.Provider), slog.String("decided", e.Decided),
			slog.Int("candidates", len(e.Candidates)), slog.Int("excluded", len(e.Excluded)))
	case flow.TaskStartEvent:
		log.LogAttrs(ctx, slog.LevelDebug, "task started", slog.Int("id", e.ID), slog.String("task", e.Task),
			slog.String("model", e.Model), slog.String("endpoint", e.Endpoint), slog.String("provider", e.Provider))
	case flow.HostDownEvent:
		log.LogAttrs(ctx, slog.LevelWarn, "host unreachable", slog.Int("id", e.ID), slog.String("host", e.Host),
			slog.String("endpoint", e.Endpoint), slog.String("reason", e.Reason))
	case flow.TaskProgressEvent:
		log.LogAttrs(ctx, slog.LevelDebug, "task progress", slog.Int("id", e.ID), slog.String("message", e.Message), slog.Int64("wait_ms", e.WaitMS))
	case flow.TaskEndEvent:
		for _, a := range e.Attempts {
			if a.Error != "" {
				log.LogAttrs(ctx, slog.LevelWarn, "endpoint failed", slog.Int("id", e.ID), slog.String("task", e.Task),
					slog.String("model", a.Model), slog.String("endpoint", a.Endpoint), slog.String("provider", a.Provider), slog.Int64("elapsed_ms", a.ElapsedMS),
					slog.String("err", a.Error))
			}
		}
		level := slog.LevelInfo
		if e.Status != flow.StatusOK {
			level = slog.LevelWarn
		}
		attrs := []slog.Attr{slog.Int("id", e.ID), slog.String("task", e.Task), slog.String("status", e.Status),
			slog.Bool("skipped", e.Skipped), slog.String("model", e.Model), slog.String("endpoint", e.Endpoint), slog.String("provider", e.Provider),
			slog.Int("attempts", len(e.Attempts)), slog.Int("files", len(e.Files)), slog.Int("result_chars", len(e.Result)),
			slog.Int64("elapsed_ms", e.ElapsedMS)}
		if e.Error != "" {
			attrs = append(attrs, slog.String("err", e.Error))
		}
		log.LogAttrs(ctx, level, "task finished", attrs...)
	case flow.AnswerEvent:
		log.LogAttrs(ctx, slog.LevelInfo, "answer", slog.Int("chars", len(e.Text)), slog.Int("tokens", e.Tokens),
			slog.Float64("tokens_per_second", e.TokensPerSecond))
	case flow.ErrorEvent:
		level := slog.LevelWarn
		if e.Fatal {
			level = slog.LevelError
		}
		log.LogAttrs(ctx, level, "stage error", slog.String("stage", string(e.Stage)), slog.String("err", e.Message), slog.Bool("fatal", e.Fatal))
	case flow.DebugEvent:
		if e.Kind == "resolve" {
			// Which file <resource>-N became: paths, no contents.
			log.LogAttrs(ctx, slog.LevelDebug, "argument resolved", slog.String("note", e.Content))
			return
		}
		log.LogAttrs(ctx, slog.LevelDebug, "controller exchange", slog.String("stage", string(e.Stage)), slog.String("kind", e.Kind),
			slog.Int("chars", len(e.Content)))
	}
}

package execution

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// failWith fails r with err: the user's input when err says so
// (endpoints.ErrBadInput: a file that does not exist, an image no tool can
// read), which no other route fixes; else the task itself failed.
func (r *job) failWith(err error) {
	r.Fail(err.Error())
	r.Fault = flow.FaultForGood
	if errors.Is(err, endpoints.ErrBadInput) {
		r.Fault = flow.FaultInput
	}
}

// Run runs one task — resolves its arguments and tries its candidates in
// order — under the run's own context ctx (the turn's, or less when the
// final plan withdraws it), and writes its record into run: the task's
// start and end events say what happened. byID are the records of its
// dependencies, which have ended. A task that cannot run (no model, no
// output directory) ends with only its end event.
func (x *Executor) Run(ctx context.Context, run *flow.TaskRun, byID map[int]*flow.TaskRun) {
	x.dirOnce.Do(func() { x.dirErr = os.MkdirAll(x.OutDir, 0o755) })
	if x.dirErr != nil {
		run.Fail(fmt.Sprintf("cannot create the output directory %s: %v — set output_dir (or --out) to a writable directory", x.OutDir, x.dirErr))
		run.Skipped = true
		x.Emit(run.EndEvent())
		return
	}
	r := &job{TaskRun: run, ctx: ctx}
	start := time.Now()
	if !x.startTask(r) {
		return
	}
	defer x.endTask(r, start)
	// An expert's bug must fail its task, not end the program and the
	// user's session with it; this runs before the end event above.
	defer r.recoverBug()
	tctx, cancel := context.WithTimeout(r.ctx, x.TaskTimeout)
	defer cancel()

	c := r.Choice
	args, err := x.resolveArgs(tctx, r.Task, c.Skill, byID)
	if err != nil {
		r.failWith(err)
		return
	}
	r.Args = args
	files, gated, err := gateArgs(x.Scope, c.Skill, args, readerOf(choiceRoutes(c), x.Workspace))
	if err != nil {
		r.failWith(err)
		return
	}
	if notes := gatedNotes(args, gated); len(notes) > 0 {
		x.Emit(flow.DebugEvent{Stage: flow.StageExecution, Kind: "resolve", Content: fmt.Sprintf("task %d (%s): %s", r.Task.ID, r.Task.Task, joinNotes(notes))})
	}
	r.Args, r.inputs = gated, files
	args = maps.Clone(gated)
	if err := fileTexts(x.Scope, r.Task, c.Skill, args); err != nil {
		r.Fail(err.Error())
		return
	}
	var lastErr error
	if c.Controller {
		if lastErr = x.runOnControllerTask(tctx, r, args); lastErr == nil {
			return
		}
	}
	done, lastErr := x.tryCandidates(tctx, r, args, files, lastErr)
	if done {
		return
	}
	r.failAll(r.ctx, tctx, lastErr, x.TaskTimeout)
}

// startTask names the model and route r will try first and says the task
// started, or ends a task that never runs with only its end event, as a
// task skipped for a failed dependency gets: a start would claim it ran
// somewhere. It reports whether the task runs.
func (x *Executor) startTask(r *job) bool {
	c := r.Choice
	if c != nil {
		switch {
		case c.Controller:
			r.Model, r.Endpoint = x.Controller.Model(), flow.EndpointController
		case len(c.Ranked) > 0:
			r.Model, r.Endpoint = c.Ranked[0].Model.ID, string(c.Ranked[0].Routes[0].Kind())
			r.Provider = flow.ResolvedProvider(r.ctx, c.Ranked[0].Routes[0], r.Task.Task, r.Model)
		}
	}
	switch {
	case c != nil && c.None != "":
		// No model qualifies: another skill may still serve the request.
		r.Fail("not run: " + c.None)
		r.Skipped, r.Fault = true, flow.FaultForGood
		x.Emit(r.EndEvent())
		return false
	case c == nil || c.Skill == nil:
		r.Fail("not run: no model was selected for this task")
		r.Skipped = true
		x.Emit(r.EndEvent())
		return false
	}
	x.Emit(flow.TaskStartEvent{ID: r.Task.ID, Task: r.Task.Task, Model: r.Model, Endpoint: r.Endpoint, Provider: r.Provider})
	return true
}

// endTask records how long r took, begun at start, and says it ended.
func (x *Executor) endTask(r *job, start time.Time) {
	r.Elapsed = time.Since(start) + r.shift
	if r.Status != flow.StatusOK && r.ctx.Err() != nil {
		// Whatever the endpoint said ("context canceled"), the task
		// stopped because the user cancelled the turn — or because the
		// final plan withdrew it.
		r.Err, r.Cancelled = "cancelled", true
		var w flow.Withdrawal
		if errors.As(context.Cause(r.ctx), &w) {
			r.Err = "cancelled: " + w.Why
		}
	}
	x.Emit(r.EndEvent())
}

// recoverBug, deferred, turns a panic in the task's code into its failure.
func (r *job) recoverBug() {
	if p := recover(); p != nil {
		r.Status, r.Text, r.Data, r.Files = "", "", nil, nil
		r.Fail(fmt.Sprintf("internal error while running it on %s (%s): %v — this is a bug in Chorus; please report it", r.Model, r.Endpoint, p))
		r.Fault = flow.FaultForGood // another route may not have the bug
	}
}

// runOnControllerTask has the controller do r, a text task, and keeps its
// result; the error is the controller's, nil when the task is done.
func (x *Executor) runOnControllerTask(ctx context.Context, r *job, args map[string]string) error {
	at := time.Now()
	text, took, err := x.runOnController(ctx, r.Task, r.Choice.Skill, args)
	r.shift += max(0, took-time.Since(at))
	r.Attempts = append(r.Attempts, flow.Attempt{Model: x.Controller.Model(), Endpoint: flow.EndpointController, Error: errText(err), Why: endpoints.WhyFailed(err), ElapsedMS: took.Milliseconds()})
	if err != nil {
		return err
	}
	r.Status, r.Text = flow.StatusOK, text
	allowResultURLs(x.Scope, text)
	x.spill(r.TaskRun)
	return nil
}

// tryCandidates runs r on its ranked models' routes in order until one
// succeeds or fails in a way no other route fixes; done says the task
// ended either way. Otherwise err is the last failure (lastErr, the
// controller's, when no route was tried), for failAll.
func (x *Executor) tryCandidates(ctx context.Context, r *job, args map[string]string, files map[string]scope.File, lastErr error) (done bool, err error) {
	c := r.Choice
	for _, cand := range c.Ranked {
		for _, route := range cand.Routes {
			if ctx.Err() != nil {
				return false, lastErr
			}
			if r.skipDown(&x.down, route, cand.Model.ID) {
				continue
			}
			r.Model, r.Endpoint = cand.Model.ID, string(route.Kind())
			r.Provider = flow.ResolvedProvider(ctx, route, r.Task.Task, cand.Model.ID)
			if lastErr != nil && len(r.Attempts) > 0 {
				x.hop(r, lastErr)
			}
			at := time.Now()
			if err := approve(ctx, route, r.TaskRun, cand.Model.ID, args); err != nil {
				r.Attempts = append(r.Attempts, flow.Attempt{Model: cand.Model.ID, Endpoint: string(route.Kind()), Error: errText(err), ElapsedMS: time.Since(at).Milliseconds()})
				lastErr = err
				continue
			}
			res, err := route.Infer(ctx, endpoints.Request{Task: r.Task.Task, Model: cand.Model.ID, Args: args, Files: files, Command: cand.Model.Command,
				LocalOnly: c.LocalOnly, Progress: x.progress(r.Task.ID), Roots: x.Scope.Roots(), Workspace: x.Workspace, Chat: x.Chat})
			var shift time.Duration
			if d := endpoints.Took(res, err); d > 0 {
				shift = d - time.Since(at)
				r.shift += shift
			}
			r.Provider = ranOn(r.Provider, res, err)
			if down, first := x.down.mark(err); first {
				x.Emit(hostDownEvent(r.Task.ID, route, down))
			}
			if err == nil {
				err = x.keepResult(r, res)
			}
			r.Attempts = append(r.Attempts, flow.Attempt{Model: cand.Model.ID, Endpoint: string(route.Kind()), Provider: r.Provider, Error: errText(err), Why: endpoints.WhyFailed(err),
				ElapsedMS: (time.Since(at) + shift).Milliseconds()})
			if err == nil {
				r.Status = flow.StatusOK
				allowResultURLs(x.Scope, r.Text)
				x.spill(r.TaskRun)
				return true, nil
			}
			lastErr = err
			if !endpoints.Retryable(err) {
				r.failWith(err)
				return true, nil
			}
		}
	}
	return false, lastErr
}

// failAll says why no candidate ran the task: the turn's end, its time,
// the attempts that failed, the candidates skipped for a host that is down.
// The task failed for good (another skill may serve the request: a revision may try one)
// unless the user refused the tool, which no plan goes around.
func (r *job) failAll(ctx, tctx context.Context, lastErr error, timeout time.Duration) {
	r.Fault = flow.FaultForGood
	if errors.Is(lastErr, flow.ErrNotApproved) {
		r.Fault = flow.FaultRefused
	}
	skipped := r.downNote()
	if skipped != "" && lastErr != nil {
		skipped = "; " + skipped
	}
	switch {
	case ctx.Err() != nil:
		r.Fail("cancelled")
	case tctx.Err() != nil:
		r.Fail(fmt.Sprintf("timed out after %s (task_timeout)", timeout))
	case lastErr != nil && len(r.Attempts) > 1:
		// Each hop had its line; the full errors are in the attempts,
		// --debug and the log.
		last := r.Attempts[len(r.Attempts)-1]
		r.Fail(fmt.Sprintf("all %d attempts failed; last: %s on %s: %s%s", len(r.Attempts), last.Model, flow.Where(last.Endpoint, last.Provider), last.Reason(), skipped))
	case lastErr != nil:
		r.Fail(lastErr.Error() + skipped)
	case skipped != "":
		r.Fail("not run: " + skipped)
	default:
		r.Fail("no endpoint could run it")
	}
}

// hop tells that the last attempt failed and r's model and route are tried
// next: one line for people, the full error for --debug (the log has it
// from the task's end).
func (x *Executor) hop(r *job, err error) {
	emit := x.Emit
	failed := r.Attempts[len(r.Attempts)-1]
	next := flow.Attempt{Model: r.Model, Endpoint: r.Endpoint, Provider: r.Provider}
	emit(flow.TaskProgressEvent{ID: r.Task.ID, Message: flow.HopLine(failed, next), Fallback: true})
	emit(flow.DebugEvent{Stage: flow.StageExecution, Kind: "fallback", Content: fmt.Sprintf("task %d (%s): %s on %s failed: %v",
		r.Task.ID, r.Task.Task, failed.Model, flow.Where(failed.Endpoint, failed.Provider), err)})
}

// ranOn is the provider that ran (or failed) a call: the one the result
// or the error names, else the one planned.
func ranOn(planned string, res endpoints.Result, err error) string {
	if err == nil && res.Provider != "" {
		return res.Provider
	}
	var he *endpoints.HTTPError
	if errors.As(err, &he) && he.Provider != "" {
		return he.Provider
	}
	return planned
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// resolveArgs substitutes <resource>-N by the dependency's product of the
// argument's modality: the text for text arguments, the file for media. A
// media URL is fetched through the turn's scope. What comes out goes
// through the gate (gateArgs) before any endpoint sees it. Which of a
// dependency's files a media argument took goes to debug when it had a
// choice.
func (x *Executor) resolveArgs(ctx context.Context, t flow.Task, s *skills.Skill, byID map[int]*flow.TaskRun) (map[string]string, error) {
	outDir, sc := x.OutDir, x.Scope
	debug := func(msg string) { x.Emit(flow.DebugEvent{Stage: flow.StageExecution, Kind: "resolve", Content: msg}) }
	out := make(map[string]string, len(t.Args))
	for _, k := range slices.Sorted(maps.Keys(t.Args)) {
		v := t.Args[k]
		a, _ := s.Arg(k)
		var missing error
		val, _ := flow.SubstituteRefs(v, func(n int) (string, bool) {
			// Only a dependency has finished for sure; reading any other
			// task's state would race with its goroutine. Validation puts
			// every reference in dep, so this is a guard, not a rule.
			dep, ok := byID[n]
			if !ok || !slices.Contains(t.Dep, n) || dep.Status != flow.StatusOK {
				missing = fmt.Errorf("argument %s needs the output of task %d, which is not available", k, n)
				return "", false
			}
			if a.Type == skills.Box || a.Type == skills.Point {
				coords, err := boxFrom(dep, a.Type)
				if err != nil {
					missing = fmt.Errorf("argument %s: %w", k, err)
					return "", false
				}
				return coords, true
			}
			if a.Type.Media() {
				if f, ok := fileFor(dep, a); ok {
					if note := choiceNote(dep, t, a, n, f); note != "" {
						debug(note)
					}
					return f, true
				}
				if a.Kind != "" {
					missing = fmt.Errorf("argument %s needs %s from task %d (%s), which produced none", k, withArticleKind(a.Kind), n, dep.Task.Task)
					return "", false
				}
				missing = fmt.Errorf("argument %s needs %s from task %d (%s), which produced none", k, flow.WithArticle(a.Type), n, dep.Task.Task)
				return "", false
			}
			if dep.Text == "" && len(dep.Files) > 0 {
				return strings.Join(dep.Files, ", "), true
			}
			return wholeText(dep, sc), true
		})
		if missing != nil {
			return nil, missing
		}
		if a.Type.Media() && flow.IsURL(val) {
			p, err := download(ctx, sc, val, outDir)
			if err != nil {
				return nil, fmt.Errorf("argument %s: %w", k, err)
			}
			val = p
		}
		out[k] = val
	}
	return out, nil
}

// keepResult records a result and writes its files under outDir. A
// failure to draw the annotated image does not fail the task — its result
// stands — but is reported through progress, never dropped. Blobs an
// endpoint spooled to temporary files are moved into outDir; none is left
// behind, whatever fails.
func (x *Executor) keepResult(r *job, res endpoints.Result) error {
	outDir, sc, progress := x.OutDir, x.Scope, x.progress(r.Task.ID)
	// Every file must be what the task promises before any is kept.
	if r.Choice != nil && r.Choice.Skill != nil {
		for i := range res.Blobs {
			head, err := blobHead(res.Blobs[i])
			if err != nil {
				res.Discard()
				return fmt.Errorf("cannot read the result file: %w", err)
			}
			size, _ := res.Blobs[i].Size()
			mt, err := checkOutput(r.Choice.Skill, r.Model, head, size)
			if err != nil {
				res.Discard()
				return err
			}
			res.Blobs[i].MIME = mt
		}
	}
	// The annotation reads the masks among the blobs, so it is drawn
	// before they are moved. It reads the input image through its checked
	// file, the one the endpoint was given.
	var annotated *endpoints.Blob
	if img, ok := r.inputs["image"]; ok {
		blob, ok, err := annotate(r.Task.Task, img.Path(), res)
		switch {
		case err != nil:
			progress(endpoints.Progress{Message: "the result stands, but the annotated image could not be drawn: " + err.Error()})
		case ok:
			annotated = &blob
		}
	}
	var files []string
	kinds := map[string]skills.FileKind{}
	for i, b := range res.Blobs {
		p, err := "", error(nil)
		if i == 0 && r.Fixed != "" {
			p, err = x.writeFixed(r.TaskRun, b)
		}
		if p == "" && err == nil {
			p, err = writeBlob(outDir, r.Task.Task, r.Task.ID, b)
		}
		if err != nil {
			endpoints.Result{Blobs: res.Blobs[i+1:]}.Discard()
			return err
		}
		// Chorus wrote it: later tasks of the turn may read it (the
		// output directory itself grants nothing).
		sc.AllowFile(p, scope.Output)
		files = append(files, p)
		if r.Choice != nil && r.Choice.Skill != nil {
			kinds[p] = r.Choice.Skill.ProducedKind(flow.ModalityOf(p))
		}
	}
	if annotated != nil {
		p, err := writeBlob(outDir, r.Task.Task+"-annotated", r.Task.ID, *annotated)
		if err == nil {
			sc.AllowFile(p, scope.Output)
			// The annotated image is listed first, the one to look at;
			// a later task's argument takes whichever kind it asks for
			// (fileFor).
			files = append([]string{p}, files...)
			kinds[p] = skills.FileAnnotated
		} else {
			progress(endpoints.Progress{Message: "the result stands, but the annotated image could not be drawn: " + err.Error()})
		}
	}
	r.Text, r.Data, r.Files, r.Kinds = res.Text, compactData(res.Data), files, kinds
	if r.Text == "" && len(files) == 0 && len(res.Data) == 0 {
		return fmt.Errorf("%s returned an empty result: %w", r.Model, endpoints.ErrUnavailable)
	}
	return nil
}

// runOnController has the controller LLM do a text task itself, in the
// turn's conversation (after the plan, which it continues).
//
// took is how long the task took: the time waited, or the server's own
// prompt and generation time when that is longer — a replay that does not
// wait still reports what the recorded call took.
func (x *Executor) runOnController(ctx context.Context, t flow.Task, s *skills.Skill, args map[string]string) (text string, took time.Duration, err error) {
	script, emit := x.Script, x.Emit
	var b strings.Builder
	fmt.Fprintf(&b, "Task %d %s: %s\nInputs (text from files and tools is quoted as <data>):\n", t.ID, t.Task, flow.SkillBrief(s))
	for _, k := range slices.Sorted(maps.Keys(args)) {
		fmt.Fprintf(&b, "%s: %s\n", k, flow.QuoteData(args[k]))
	}
	start := time.Now()
	reply, err := flow.Call(ctx, x.Controller, controller.ChatCall{Messages: script.With(flow.StageMessage(flow.MarkTask, b.String())), NumPredict: x.Controller.Options().AnswerTokens})
	took = max(time.Since(start), reply.PromptEvalDuration+reply.EvalDuration)
	if err != nil {
		return "", took, err
	}
	script.Record(flow.StageExecution, reply, time.Since(start), emit)
	text = strings.TrimSpace(flow.WithoutThinking(reply.Content))
	if text == "" {
		return "", took, errors.New("the controller returned nothing")
	}
	return text, took, nil
}

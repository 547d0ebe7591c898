package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// taskRun is the execution state and record of one task. The scheduler
// goroutine owns it until the task starts; the task's goroutine owns it
// until it reports on the done channel, which publishes it back.
type taskRun struct {
	task   Task
	choice *choice
	args   map[string]string
	// inputs are the checked files of the media arguments.
	inputs  map[string]scope.File
	status  string
	skipped bool
	// cancelled: the turn was cancelled before the task finished.
	cancelled bool
	// fault says why a failed run failed, for the revision's rule
	// (revise.go): only a task that failed for good is revised.
	fault fault
	text  string
	// spilled is the file holding the whole text when it was over the
	// result cap (spill.go); text is then its start.
	spilled string
	data    json.RawMessage
	files   []string
	// kinds says what each file is where its modality does not (a mask,
	// the annotated preview); see fileFor.
	kinds    map[string]skills.FileKind
	err      string
	attempts []Attempt
	model    string
	endpoint string
	provider string
	elapsed  time.Duration
	// shift is what calls said they took (a replay's recorded times)
	// beyond what they took now; the task's time includes it.
	shift time.Duration
	// down are the hosts the turn found down (shared by its runs);
	// skippedDown counts the candidates this run skipped for one, downErr
	// the first such host's failure.
	down        *downHosts
	skippedDown int
	downErr     *endpoints.HostDownError

	// The dispatcher's state (dispatch.go), guarded by its mutex but for
	// ctx, cancel, ready and done. ctx is the run's own: the turn's, or
	// less when the final plan withdraws an early run.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// ready closes when choice is set; pending holds the choice while
	// the controller is still to make it.
	ready   chan struct{}
	pending *choice
	// done closes when the run has finished (or was skipped).
	done chan struct{}
	// early: offered while the plan streamed; withdrawn says why the
	// final plan did not keep it.
	early, launched, finished bool
	withdrawn                 string
	// fixed is the path Chorus fixed in advance for the task's file
	// (early.go), "" for a task whose answer needs more than a path;
	// promised is set once an early answer named it; correction is the
	// line that corrects that answer when the file was not made there.
	fixed      string
	promised   bool
	correction string
}

func (r *taskRun) fail(msg string) {
	r.status, r.err = StatusError, msg
}

// failWith fails r with err: the user's input when err says so
// (endpoints.ErrBadInput: a file that does not exist, an image no tool can
// read), which no other route fixes; else the task itself failed.
func (r *taskRun) failWith(err error) {
	r.fail(err.Error())
	r.fault = faultForGood
	if errors.Is(err, endpoints.ErrBadInput) {
		r.fault = faultInput
	}
}

func (r *taskRun) endEvent() TaskEndEvent {
	files := r.files
	if files == nil {
		files = []string{}
	}
	return TaskEndEvent{ID: r.task.ID, Task: r.task.Task, Status: r.status, Skipped: r.skipped, Cancelled: r.cancelled, Model: r.model, Endpoint: r.endpoint,
		Provider: r.provider, Result: r.text, Data: r.data, Files: files, Error: r.err, Attempts: r.attempts, ElapsedMS: r.elapsed.Milliseconds()}
}

// runTask resolves the task's arguments and tries its candidates in order,
// under the run's own context (r.ctx); byID are its dependencies' runs.
func (tr *turnRun) runTask(r *taskRun, byID map[int]*taskRun) {
	start := time.Now()
	if !tr.startTask(r) {
		return
	}
	defer tr.endTask(r, start)
	// An expert's bug must fail its task, not end the program and the
	// user's session with it; this runs before the end event above.
	defer r.recoverBug()
	tctx, cancel := context.WithTimeout(r.ctx, tr.e.opts.TaskTimeout)
	defer cancel()

	c := r.choice
	args, err := tr.resolveArgs(tctx, r.task, c.skill, byID)
	if err != nil {
		r.failWith(err)
		return
	}
	r.args = args
	files, gated, err := gateArgs(tr.sc, c.skill, args, readerOf(choiceRoutes(c), tr.t.Workspace))
	if err != nil {
		r.failWith(err)
		return
	}
	if notes := gatedNotes(args, gated); len(notes) > 0 {
		tr.emit(DebugEvent{Stage: StageExecution, Kind: "resolve", Content: fmt.Sprintf("task %d (%s): %s", r.task.ID, r.task.Task, joinNotes(notes))})
	}
	r.args, r.inputs = gated, files
	args = maps.Clone(gated)
	if err := fileTexts(tr.sc, r.task, c.skill, args); err != nil {
		r.fail(err.Error())
		return
	}
	var lastErr error
	if c.controller {
		if lastErr = tr.runOnControllerTask(tctx, r, args); lastErr == nil {
			return
		}
	}
	done, lastErr := tr.tryCandidates(tctx, r, args, files, lastErr)
	if done {
		return
	}
	r.failAll(r.ctx, tctx, lastErr, tr.e.opts.TaskTimeout)
}

// startTask names the model and route r will try first and says the task
// started, or ends a task that never runs with only its end event, as a
// task skipped for a failed dependency gets: a start would claim it ran
// somewhere. It reports whether the task runs.
func (tr *turnRun) startTask(r *taskRun) bool {
	c := r.choice
	if c != nil {
		switch {
		case c.controller:
			r.model, r.endpoint = tr.e.ctl.Model(), EndpointController
		case len(c.ranked) > 0:
			r.model, r.endpoint = c.ranked[0].model.ID, string(c.ranked[0].routes[0].Kind())
			r.provider = resolvedProvider(r.ctx, c.ranked[0].routes[0], r.task.Task, r.model)
		}
	}
	switch {
	case c != nil && c.none != "":
		// No model qualifies: another skill may still serve the request.
		r.fail("not run: " + c.none)
		r.skipped, r.fault = true, faultForGood
		tr.emit(r.endEvent())
		return false
	case c == nil || c.skill == nil:
		r.fail("not run: no model was selected for this task")
		r.skipped = true
		tr.emit(r.endEvent())
		return false
	}
	tr.emit(TaskStartEvent{ID: r.task.ID, Task: r.task.Task, Model: r.model, Endpoint: r.endpoint, Provider: r.provider})
	return true
}

// endTask records how long r took, begun at start, and says it ended.
func (tr *turnRun) endTask(r *taskRun, start time.Time) {
	r.elapsed = time.Since(start) + r.shift
	if r.status != StatusOK && r.ctx.Err() != nil {
		// Whatever the endpoint said ("context canceled"), the task
		// stopped because the user cancelled the turn — or because the
		// final plan withdrew it.
		r.err, r.cancelled = "cancelled", true
		var w withdrawal
		if errors.As(context.Cause(r.ctx), &w) {
			r.err = "cancelled: " + w.why
		}
	}
	tr.emit(r.endEvent())
}

// recoverBug, deferred, turns a panic in the task's code into its failure.
func (r *taskRun) recoverBug() {
	if p := recover(); p != nil {
		r.status, r.text, r.data, r.files = "", "", nil, nil
		r.fail(fmt.Sprintf("internal error while running it on %s (%s): %v — this is a bug in Chorus; please report it", r.model, r.endpoint, p))
		r.fault = faultForGood // another route may not have the bug
	}
}

// runOnControllerTask has the controller do r, a text task, and keeps its
// result; the error is the controller's, nil when the task is done.
func (tr *turnRun) runOnControllerTask(ctx context.Context, r *taskRun, args map[string]string) error {
	at := time.Now()
	text, took, err := tr.runOnController(ctx, r.task, r.choice.skill, args)
	r.shift += max(0, took-time.Since(at))
	r.attempts = append(r.attempts, Attempt{Model: tr.e.ctl.Model(), Endpoint: EndpointController, Error: errText(err), Why: endpoints.WhyFailed(err), ElapsedMS: took.Milliseconds()})
	if err != nil {
		return err
	}
	r.status, r.text = StatusOK, text
	allowResultURLs(tr.sc, text)
	tr.spill(r)
	return nil
}

// tryCandidates runs r on its ranked models' routes in order until one
// succeeds or fails in a way no other route fixes; done says the task
// ended either way. Otherwise err is the last failure (lastErr, the
// controller's, when no route was tried), for failAll.
func (tr *turnRun) tryCandidates(ctx context.Context, r *taskRun, args map[string]string, files map[string]scope.File, lastErr error) (done bool, err error) {
	c := r.choice
	for _, cand := range c.ranked {
		for _, route := range cand.routes {
			if ctx.Err() != nil {
				return false, lastErr
			}
			if r.skipDown(route, cand.model.ID) {
				continue
			}
			r.model, r.endpoint = cand.model.ID, string(route.Kind())
			r.provider = resolvedProvider(ctx, route, r.task.Task, cand.model.ID)
			if lastErr != nil && len(r.attempts) > 0 {
				tr.hop(r, lastErr)
			}
			at := time.Now()
			if err := approve(ctx, route, r, cand.model.ID, args); err != nil {
				r.attempts = append(r.attempts, Attempt{Model: cand.model.ID, Endpoint: string(route.Kind()), Error: errText(err), ElapsedMS: time.Since(at).Milliseconds()})
				lastErr = err
				continue
			}
			res, err := route.Infer(ctx, endpoints.Request{Task: r.task.Task, Model: cand.model.ID, Args: args, Files: files, Command: cand.model.Command,
				LocalOnly: c.localOnly, Progress: tr.progress(r.task.ID), Roots: tr.sc.Roots(), Workspace: tr.t.Workspace, Chat: tr.t.Chat})
			var shift time.Duration
			if d := endpoints.Took(res, err); d > 0 {
				shift = d - time.Since(at)
				r.shift += shift
			}
			r.provider = ranOn(r.provider, res, err)
			if down, first := r.down.mark(err); first {
				tr.emit(hostDownEvent(r.task.ID, route, down))
			}
			if err == nil {
				err = tr.keepResult(r, res)
			}
			r.attempts = append(r.attempts, Attempt{Model: cand.model.ID, Endpoint: string(route.Kind()), Provider: r.provider, Error: errText(err), Why: endpoints.WhyFailed(err),
				ElapsedMS: (time.Since(at) + shift).Milliseconds()})
			if err == nil {
				r.status = StatusOK
				allowResultURLs(tr.sc, r.text)
				tr.spill(r)
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
// The task failed for good (another skill may serve the request: revise.go)
// unless the user refused the tool, which no plan goes around.
func (r *taskRun) failAll(ctx, tctx context.Context, lastErr error, timeout time.Duration) {
	r.fault = faultForGood
	if errors.Is(lastErr, ErrNotApproved) {
		r.fault = faultRefused
	}
	skipped := r.downNote()
	if skipped != "" && lastErr != nil {
		skipped = "; " + skipped
	}
	switch {
	case ctx.Err() != nil:
		r.fail("cancelled")
	case tctx.Err() != nil:
		r.fail(fmt.Sprintf("timed out after %s (task_timeout)", timeout))
	case lastErr != nil && len(r.attempts) > 1:
		// Each hop had its line; the full errors are in the attempts,
		// --debug and the log.
		last := r.attempts[len(r.attempts)-1]
		r.fail(fmt.Sprintf("all %d attempts failed; last: %s on %s: %s%s", len(r.attempts), last.Model, Where(last.Endpoint, last.Provider), last.Reason(), skipped))
	case lastErr != nil:
		r.fail(lastErr.Error() + skipped)
	case skipped != "":
		r.fail("not run: " + skipped)
	default:
		r.fail("no endpoint could run it")
	}
}

// hop tells that the last attempt failed and r's model and route are tried
// next: one line for people, the full error for --debug (the log has it
// from the task's end).
func (tr *turnRun) hop(r *taskRun, err error) {
	emit := tr.emit
	failed := r.attempts[len(r.attempts)-1]
	next := Attempt{Model: r.model, Endpoint: r.endpoint, Provider: r.provider}
	emit(TaskProgressEvent{ID: r.task.ID, Message: HopLine(failed, next), Fallback: true})
	emit(DebugEvent{Stage: StageExecution, Kind: "fallback", Content: fmt.Sprintf("task %d (%s): %s on %s failed: %v",
		r.task.ID, r.task.Task, failed.Model, Where(failed.Endpoint, failed.Provider), err)})
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

func shortErr(err error) string { return text.Clip(err.Error(), 160) }

// resolveArgs substitutes <resource>-N by the dependency's product of the
// argument's modality: the text for text arguments, the file for media. A
// media URL is fetched through the turn's scope. What comes out goes
// through the gate (gateArgs) before any endpoint sees it. Which of a
// dependency's files a media argument took goes to debug when it had a
// choice.
func (tr *turnRun) resolveArgs(ctx context.Context, t Task, s *skills.Skill, byID map[int]*taskRun) (map[string]string, error) {
	outDir, sc := tr.outDir, tr.sc
	debug := func(msg string) { tr.emit(DebugEvent{Stage: StageExecution, Kind: "resolve", Content: msg}) }
	out := make(map[string]string, len(t.Args))
	for _, k := range sortedKeys(t.Args) {
		v := t.Args[k]
		a, _ := s.Arg(k)
		var missing error
		val, _ := substituteRefs(v, func(n int) (string, bool) {
			// Only a dependency has finished for sure; reading any other
			// task's state would race with its goroutine. Validation puts
			// every reference in dep, so this is a guard, not a rule.
			dep, ok := byID[n]
			if !ok || !slices.Contains(t.Dep, n) || dep.status != StatusOK {
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
				if f, ok := dep.fileFor(a); ok {
					if note := dep.choiceNote(t, a, n, f); note != "" {
						debug(note)
					}
					return f, true
				}
				if a.Kind != "" {
					missing = fmt.Errorf("argument %s needs %s from task %d (%s), which produced none", k, withArticleKind(a.Kind), n, dep.task.Task)
					return "", false
				}
				missing = fmt.Errorf("argument %s needs %s from task %d (%s), which produced none", k, withArticle(a.Type), n, dep.task.Task)
				return "", false
			}
			if dep.text == "" && len(dep.files) > 0 {
				return strings.Join(dep.files, ", "), true
			}
			return dep.wholeText(sc), true
		})
		if missing != nil {
			return nil, missing
		}
		if a.Type.Media() && isURL(val) {
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
func (tr *turnRun) keepResult(r *taskRun, res endpoints.Result) error {
	e, outDir, sc, progress := tr.e, tr.outDir, tr.sc, tr.progress(r.task.ID)
	// Every file must be what the task promises before any is kept.
	if r.choice != nil && r.choice.skill != nil {
		for i := range res.Blobs {
			head, err := blobHead(res.Blobs[i])
			if err != nil {
				res.Discard()
				return fmt.Errorf("cannot read the result file: %w", err)
			}
			size, _ := res.Blobs[i].Size()
			mt, err := checkOutput(r.choice.skill, r.model, head, size)
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
		blob, ok, err := annotate(r.task.Task, img.Path(), res)
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
		if i == 0 && r.fixed != "" {
			p, err = e.writeFixed(r, b)
		}
		if p == "" && err == nil {
			p, err = writeBlob(outDir, r.task.Task, r.task.ID, b)
		}
		if err != nil {
			endpoints.Result{Blobs: res.Blobs[i+1:]}.Discard()
			return err
		}
		// Chorus wrote it: later tasks of the turn may read it (the
		// output directory itself grants nothing).
		sc.AllowFile(p, scope.Output)
		files = append(files, p)
		if r.choice != nil && r.choice.skill != nil {
			kinds[p] = r.choice.skill.ProducedKind(ModalityOf(p))
		}
	}
	if annotated != nil {
		p, err := writeBlob(outDir, r.task.Task+"-annotated", r.task.ID, *annotated)
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
	r.text, r.data, r.files, r.kinds = res.Text, compactData(res.Data), files, kinds
	if r.text == "" && len(files) == 0 && len(res.Data) == 0 {
		return fmt.Errorf("%s returned an empty result: %w", r.model, endpoints.ErrUnavailable)
	}
	return nil
}

// writeFixed stores a task's first file at the path fixed for it in
// advance (early.go) when its type has that path's extension, and
// remembers the extension the task produced for the next fixed path. It
// returns "" (and no error) when the file must go elsewhere: another type,
// or a name that is taken.
func (e *Engine) writeFixed(r *taskRun, b endpoints.Blob) (string, error) {
	head, err := blobHead(b)
	if err != nil {
		b.Remove()
		return "", fmt.Errorf("cannot read the result file: %w", err)
	}
	ext := extFor(b.MIME, head)
	if e.exts != nil {
		e.exts.Store(r.task.Task, ext)
	}
	if ext != filepath.Ext(r.fixed) {
		return "", nil
	}
	f, err := os.OpenFile(r.fixed, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", nil
	}
	f.Close()
	if err := b.SaveAs(r.fixed); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", r.fixed, err)
	}
	return r.fixed, nil
}

// writeBlob stores b under dir with a unique name and an extension that
// matches its type, and returns the absolute path. A blob spooled to a
// temporary file is moved, not read into memory; a write that fails (a
// full disk) leaves no empty or partial file behind.
func writeBlob(dir, task string, id int, b endpoints.Blob) (string, error) {
	head, err := blobHead(b)
	if err != nil {
		b.Remove()
		return "", fmt.Errorf("cannot read the result file: %w", err)
	}
	ext := extFor(b.MIME, head)
	var suffix [3]byte
	for {
		_, _ = rand.Read(suffix[:])
		name := fmt.Sprintf("%s-%s-%d-%s%s", time.Now().Format("20060102-150405"), safeName(task), id, hex.EncodeToString(suffix[:]), ext)
		p := filepath.Join(dir, name)
		// The name is reserved first, so two results never share it.
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			b.Remove()
			return "", fmt.Errorf("cannot write the result file: %w", err)
		}
		f.Close()
		if err := b.SaveAs(p); err != nil {
			return "", fmt.Errorf("cannot write %s: %w", p, err)
		}
		return p, nil
	}
}

// blobHead returns the first bytes of b, for telling its type.
func blobHead(b endpoints.Blob) ([]byte, error) {
	if b.Path == "" {
		return b.Data, nil
	}
	f, err := os.Open(b.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, endpoints.SniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}

// runOnController has the controller LLM do a text task itself, in the
// turn's conversation (after the plan, which it continues).
//
// took is how long the task took: the time waited, or the server's own
// prompt and generation time when that is longer — a replay that does not
// wait still reports what the recorded call took.
func (tr *turnRun) runOnController(ctx context.Context, t Task, s *skills.Skill, args map[string]string) (text string, took time.Duration, err error) {
	e, script, emit := tr.e, tr.script, tr.emit
	var b strings.Builder
	fmt.Fprintf(&b, "Task %d %s: %s\nInputs (text from files and tools is quoted as <data>):\n", t.ID, t.Task, skillBrief(s))
	for _, k := range sortedKeys(args) {
		fmt.Fprintf(&b, "%s: %s\n", k, quoteData(args[k]))
	}
	start := time.Now()
	reply, err := e.callController(ctx, controller.ChatCall{Messages: script.with(stageMessage(markTask, b.String())), NumPredict: e.ctl.Options().AnswerTokens})
	took = max(time.Since(start), reply.PromptEvalDuration+reply.EvalDuration)
	if err != nil {
		return "", took, err
	}
	script.record(StageExecution, reply, time.Since(start), emit)
	text = strings.TrimSpace(thinkBlock.ReplaceAllString(reply.Content, ""))
	if text == "" {
		return "", took, errors.New("the controller returned nothing")
	}
	return text, took, nil
}

// reportTasks turns runs into the turn's execution record. An argument
// is kept to the result cap as a result is: it holds what another task
// returned, or a file's contents, which the record has elsewhere.
func reportTasks(runs []*taskRun, limit int) []TaskReport {
	out := make([]TaskReport, 0, len(runs))
	for _, r := range runs {
		tr := TaskReport{TaskEndEvent: r.endEvent(), Dep: slices.Clone(r.task.Dep), Args: r.args}
		if tr.Args == nil {
			tr.Args = r.task.Args
		}
		tr.Args = cappedArgs(tr.Args, limit)
		if r.choice != nil {
			tr.Decided, tr.Reason, tr.Unmet = r.choice.decided, r.choice.why(), r.choice.unmet
		}
		if r.promised {
			tr.Early, tr.Correction = r.fixed, r.correction
		}
		out = append(out, tr)
	}
	return out
}

// cappedArgs is args with each value kept to limit bytes; args itself
// (shared with the run) when none is longer.
func cappedArgs(args map[string]string, limit int) map[string]string {
	var out map[string]string
	for k, v := range args {
		if len(v) <= limit {
			continue
		}
		if out == nil {
			out = maps.Clone(args)
		}
		out[k] = budgeted(v, limit)
	}
	if out == nil {
		return args
	}
	return out
}

func reportFiles(runs []*taskRun) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.files...)
	}
	return out
}

// compactData keeps structured results small enough for events, reports and
// prompts: long strings inside them (base64 masks, embedded images) are
// replaced by a note of their size. The full data was already used to
// annotate and write files.
func compactData(d json.RawMessage) json.RawMessage {
	const limit = 16 << 10
	if len(d) == 0 {
		return nil
	}
	if !json.Valid(d) {
		// Events and reports are JSON: one invalid RawMessage would make
		// the whole task_end and report events unencodable.
		b, _ := json.Marshal(budgeted(strings.ToValidUTF8(string(d), "\uFFFD"), 4<<10))
		return b
	}
	if len(d) <= limit {
		return d
	}
	var v any
	if err := json.Unmarshal(d, &v); err != nil {
		return nil
	}
	var shrink func(any) any
	shrink = func(x any) any {
		switch t := x.(type) {
		case string:
			if len(t) > 512 {
				return fmt.Sprintf("(%d bytes omitted)", len(t))
			}
		case []any:
			for i := range t {
				t[i] = shrink(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = shrink(t[k])
			}
		}
		return x
	}
	b, err := json.Marshal(shrink(v))
	if err != nil || len(b) > 4*limit {
		return nil
	}
	return b
}

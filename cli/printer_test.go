package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestRunLogModelLinesUnderSelection: a task whose model is decided at once
// starts running while the controller still chooses the other's; the
// controller's choice, when it comes, is still logged under "── selection",
// and what runs after it under "── execution" again.
func TestRunLogModelLinesUnderSelection(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(30, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"image-resize","id":1,"dep":[],"args":{"image":"` + img + `","text":"50%"}},` +
				`{"task":"image-to-text","id":2,"dep":[],"args":{"image":"` + img + `"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":2,"pick":2,"reason":"small and enough"}]}`, ChunkDelay: 20 * time.Millisecond}
		}
		return fakeollama.Reply{Content: "Done."}
	})
	e.serveSkill("image-to-text")
	e.env["CHORUS_SELECTION"] = "controller"
	_, stderr, code := e.run("run", "--out", e.out, "caption "+img+" and make it half as big")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	stage := ""
	models := 0
	for _, l := range strings.Split(stderr, "\n") {
		if s, ok := strings.CutPrefix(l, "── "); ok {
			stage = s
			continue
		}
		switch {
		case strings.HasPrefix(l, "model: "):
			models++
			if stage != "selection" {
				t.Errorf("%q is logged under ── %s:\n%s", l, stage, stderr)
			}
		case strings.HasPrefix(l, "start: "), strings.HasPrefix(l, "done: "):
			if stage != "execution" {
				t.Errorf("%q is logged under ── %s:\n%s", l, stage, stderr)
			}
		}
	}
	if models != 2 {
		t.Fatalf("%d model lines, want 2:\n%s", models, stderr)
	}
}

// TestRunLogSaysWhatRanAfterAFallback: the plain log's done line names the
// model that ran and, in a few words, what failed before it.
func TestRunLogSaysWhatRanAfterAFallback(t *testing.T) {
	t.Parallel()
	var out, log strings.Builder
	p := newPrinter(&out, &log, false, false)
	p.emit(pipeline.TaskEndEvent{ID: 1, Task: "text-to-speech", Status: pipeline.StatusOK, Model: "facebook/mms-tts-eng", Endpoint: "huggingface", Provider: "hf-inference",
		Attempts: []pipeline.Attempt{
			{Model: "hexgrad/Kokoro-82M", Endpoint: "huggingface", Provider: "replicate", Error: "huggingface hexgrad/Kokoro-82M: no provider could run it: …", Why: "not served by fal-ai (404), replicate (404)"},
			{Model: "facebook/mms-tts-eng", Endpoint: "huggingface", Provider: "hf-inference"},
		}, ElapsedMS: 1200})
	if !strings.Contains(log.String(), "done: task 1 text-to-speech with facebook/mms-tts-eng on huggingface (hf-inference) in 1200 ms (after Kokoro-82M failed: not served by fal-ai (404), replicate (404))") {
		t.Fatalf("log:\n%s", log.String())
	}
}

// TestRunLogHeadsOnlyStagesWithLines: with streaming dispatch a task runs
// while the plan is still written, so the turn comes back to planning and
// then announces selection and execution again, often with nothing left to
// log under them. A header is a section of the log: it is printed again only
// when a line comes under it, never as an empty "── selection".
func TestRunLogHeadsOnlyStagesWithLines(t *testing.T) {
	t.Parallel()
	var out, log strings.Builder
	p := newPrinter(&out, &log, false, false)
	task := pipeline.Task{ID: 1, Task: "canny-control", Dep: []int{}, Args: map[string]string{"image": "/tmp/pic.png"}}
	for _, ev := range []pipeline.Event{
		pipeline.StageEvent{Stage: pipeline.StagePlanning},
		pipeline.PlanTaskEvent{Task: task},
		pipeline.ModelEvent{ID: 1, Task: "canny-control", Model: "chorus/canny", Endpoint: "builtin", Decided: "only candidate"},
		pipeline.TaskStartEvent{ID: 1, Task: "canny-control"},
		pipeline.PlanEvent{Tasks: []pipeline.Task{task}},
		pipeline.StageEvent{Stage: pipeline.StageSelection},
		pipeline.StageEvent{Stage: pipeline.StageExecution},
		pipeline.TaskEndEvent{ID: 1, Task: "canny-control", Status: pipeline.StatusOK, Model: "chorus/canny", Endpoint: "builtin"},
		pipeline.StageEvent{Stage: pipeline.StageResponse},
	} {
		p.emit(ev)
	}
	var heads []string
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	for i, l := range lines {
		s, ok := strings.CutPrefix(l, "── ")
		if !ok {
			continue
		}
		heads = append(heads, s)
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "── ") {
			t.Errorf("── %s heads nothing:\n%s", s, log.String())
		}
	}
	// The plan's end adds nothing the streamed tasks did not say: the
	// log does not go back to planning to list them again.
	want := "planning selection execution response"
	if got := strings.Join(heads, " "); got != want {
		t.Errorf("headers %q, want %q:\n%s", got, want, log.String())
	}
	if strings.Contains(log.String(), "task(s)") {
		t.Errorf("the streamed plan is listed again when it ends:\n%s", log.String())
	}

	// When the controller chooses, selection and execution are announced
	// before the choice streams in: their headers wait for their lines.
	log.Reset()
	p = newPrinter(&out, &log, false, false)
	for _, ev := range []pipeline.Event{
		pipeline.StageEvent{Stage: pipeline.StagePlanning},
		pipeline.PlanEvent{Tasks: []pipeline.Task{task}},
		pipeline.StageEvent{Stage: pipeline.StageSelection},
		pipeline.StageEvent{Stage: pipeline.StageExecution},
		pipeline.ModelEvent{ID: 1, Task: "canny-control", Model: "chorus/canny", Endpoint: "builtin", Decided: "controller"},
		pipeline.TaskStartEvent{ID: 1, Task: "canny-control"},
		pipeline.TaskEndEvent{ID: 1, Task: "canny-control", Status: pipeline.StatusOK, Model: "chorus/canny", Endpoint: "builtin"},
		pipeline.StageEvent{Stage: pipeline.StageResponse},
	} {
		p.emit(ev)
	}
	want = "── planning\nplan: 1 task(s)\n  1. canny-control {image=/tmp/pic.png}\n── selection\nmodel: "
	if !strings.HasPrefix(log.String(), want) || strings.Count(log.String(), "── ") != 4 {
		t.Errorf("log:\n%s\nwant it to start\n%s", log.String(), want)
	}
}

// TestRunLogSaysAPlanFailureOnce: a plan that could not be read is an error
// event (the warning) and a note of the empty plan with the same words; the
// log says it once.
func TestRunLogSaysAPlanFailureOnce(t *testing.T) {
	t.Parallel()
	var out, log strings.Builder
	p := newPrinter(&out, &log, false, false)
	why := "the plan could not be read: the JSON in the reply is cut off or unbalanced (after one re-ask); answering without expert models"
	p.emit(pipeline.StageEvent{Stage: pipeline.StagePlanning})
	p.emit(pipeline.ErrorEvent{Stage: pipeline.StagePlanning, Message: why})
	p.emit(pipeline.PlanEvent{Notes: []string{why, "another note"}})
	if n := strings.Count(log.String(), why); n != 1 {
		t.Errorf("said %d times:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "  note: another note") {
		t.Errorf("the plan's other notes are lost:\n%s", log.String())
	}
}

// TestRunLogModelLineWithoutAReason: the controller's pick arrives before
// its reason (the reason follows as its own line): the model line ends
// with who decided, not with a dash before nothing.
func TestRunLogModelLineWithoutAReason(t *testing.T) {
	t.Parallel()
	var out, log strings.Builder
	p := newPrinter(&out, &log, false, false)
	p.emit(pipeline.ModelEvent{ID: 1, Task: "text-to-image", Model: "black-forest-labs/FLUX.1-dev", Endpoint: "huggingface", Provider: "fal-ai", Decided: "controller choice"})
	p.emit(pipeline.ModelEvent{ID: 2, Task: "summarization", Endpoint: pipeline.EndpointController, Decided: "controller"})
	p.emit(pipeline.ModelReasonEvent{ID: 1, Reason: "the best at photographs"})
	want := "── selection\n" +
		"model: task 1 text-to-image → black-forest-labs/FLUX.1-dev on huggingface (fal-ai) [controller choice]\n" +
		"model: task 2 summarization → the controller [controller]\n" +
		"  task 1's model: the best at photographs\n"
	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
}

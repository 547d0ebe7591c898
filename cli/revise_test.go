package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/eval"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// TestRunRevisedPlan: the built `chorus` with the defaults — the early
// answer on, planner.revise 1 — and the video model down: the answer
// starts at once while the video is made, the video fails, a line
// corrects the answer, the controller revises the plan to a still image,
// and the answer goes on with it. The progress log says so under
// "── revision"; --json has the plan_revision event, the image's task
// events, more tokens, then one answer event holding the whole text; the
// saved session and its export keep the whole answer and the revision.
// Exit 0 — and 1 when the still image fails too.
func TestRunRevisedPlan(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	bin := chorusBinary(t)
	const early, goOn = "Here is your fox video.", "The video model is down, so here is a still image instead."
	// answering closes when a run's answer starts; each run gets its own,
	// so the video fails after the answer started in every run, not only
	// in the first.
	type gate struct {
		started chan struct{}
		once    sync.Once
	}
	var mu sync.Mutex
	answering := &gate{started: make(chan struct{})}
	current := func() *gate {
		mu.Lock()
		defer mu.Unlock()
		return answering
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		switch pipeline.PromptStage(last) {
		case string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-video","args":{"text":"a red fox running"}}]}`}
		case string(pipeline.StageRevision):
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","args":{"text":"a red fox running"}}]}`}
		case string(pipeline.StageSelection):
			return fakeollama.Reply{Content: `{"picks":{},"reasons":{}}`}
		}
		if strings.Contains(last, "Results of the tasks the revision added") {
			return fakeollama.Reply{Content: goOn}
		}
		g := current()
		g.once.Do(func() { close(g.started) })
		return fakeollama.Reply{Content: early}
	})
	// Every video model is down — and answers so only once the answer
	// has started, as a slow video model does.
	for _, id := range e.serveSkill("text-to-video") {
		e.hf.Model(id, "text-to-video").Respond(func(*http.Request, []byte) (int, string, []byte) {
			select {
			case <-current().started:
			case <-time.After(20 * time.Second):
			}
			return http.StatusInternalServerError, "application/json", []byte(`{"error":"CUDA out of memory"}`)
		})
	}
	images := e.serveSkill("text-to-image")
	run := func(args ...string) (string, string, int) {
		mu.Lock()
		answering = &gate{started: make(chan struct{})}
		mu.Unlock()
		cmd := exec.Command(bin, append([]string{"run", "--out", e.out}, args...)...)
		cmd.Env = e.childEnv()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}

	stdout, stderr, code := run("make a short video of a red fox running")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"failed: task 1 text-to-video", "── revision\nrevised: after task 1 text-to-video failed — 1 new task(s)\n  2. text-to-image {text=a red fox running}",
		"done: task 2 text-to-image"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log lacks %q:\n%s", want, stderr)
		}
	}
	said := regexp.MustCompile(`(?s)^` + regexp.QuoteMeta(early) + `\n\n_Correction: task 1 \(text-to-video\) failed, so \S+\.mp4 was not produced: [^\n]+\._\n\n` +
		regexp.QuoteMeta(goOn) + `\n\n\*\*Workflow\*\*.*Revised after task 1 \(text-to-video\) failed`)
	if !said.MatchString(stdout) {
		t.Errorf("the answer is not the early answer, its correction, its continuation and the workflow:\n%s", stdout)
	}
	latest, err := sessions.Store{Dir: e.env.SessionsDir()}.Latest()
	if err != nil || latest == nil || len(latest.Turns) != 1 {
		t.Fatalf("saved session: %v %+v", err, latest)
	}
	turn := latest.Turns[0]
	if len(turn.Revisions) != 1 || turn.Revisions[0].Tasks[0].Task != "text-to-image" || turn.Report == nil || len(turn.Report.Revisions) != 1 ||
		len(turn.Generated()) != 1 || !said.MatchString(turn.Answer) {
		t.Fatalf("saved turn: revisions %+v, generated %v, answer:\n%s", turn.Revisions, turn.Generated(), turn.Answer)
	}
	if md := sessions.Export(latest); !strings.Contains(md, "**Plan revised:** revised after task 1 (text-to-video) failed") {
		t.Errorf("export:\n%s", md)
	}

	stdout, stderr, code = run("--json", "--no-save", "make a short video of a red fox running")
	if code != 0 {
		t.Fatalf("--json exit %d: %s", code, stderr)
	}
	var types []string
	var answers []string
	for _, ev := range jsonLines(t, stdout) {
		types = append(types, ev["type"].(string))
		switch ev["type"] {
		case "plan_revision":
			if after := ev["after"].([]any)[0].(map[string]any); after["id"].(float64) != 1 || ev["tasks"].([]any)[0].(map[string]any)["task"] != "text-to-image" {
				t.Errorf("plan_revision = %v", ev)
			}
		case "answer":
			answers = append(answers, ev["text"].(string))
		}
	}
	first, revised, lastToken := slices.Index(types, "token"), slices.Index(types, "plan_revision"), -1
	for i, ty := range types {
		if ty == "token" {
			lastToken = i
		}
	}
	if !(first < revised && revised < slices.Index(types[revised:], "task_start")+revised && revised < slices.Index(types[revised:], "task_end")+revised &&
		revised < lastToken && lastToken < slices.Index(types, "answer")) || len(answers) != 1 || !said.MatchString(answers[0]) {
		t.Errorf("--json events: %v\nanswers: %q", types, answers)
	}

	// The still image fails too: the answer says so, and the run failed.
	for _, id := range images {
		e.hf.Model(id, "text-to-image").Status(http.StatusInternalServerError, "CUDA out of memory")
	}
	if _, stderr, code := run("--no-save", "make a short video of a red fox running"); code != 1 || !strings.Contains(stderr, "every task of the plan failed (2 of 2)") {
		t.Fatalf("with the image model down too: exit %d: %s", code, stderr)
	}
}

// TestEvalFailures: `chorus eval --failures` runs the failure suite as
// whole turns with scripted failing experts and reports the success rate
// without and with the plan's revision, as a table and as JSON.
func TestEvalFailures(t *testing.T) {
	t.Parallel()
	suite := filepath.Join(t.TempDir(), "down.json")
	if err := os.WriteFile(suite, []byte(`{"name": "down", "cases": [
		{"id": "video-down", "request": "Make a short video of a fox.", "gold": [{"task": "text-to-video", "id": 1, "dep": []}],
		 "fail": ["text-to-video"], "serves": [["text-to-video"], ["text-to-image"]]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) {
		case string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-video","id":1,"dep":[],"args":{"text":"a fox"}}]}`}
		case string(pipeline.StageRevision):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-image","id":2,"dep":[],"args":{"text":"a fox"}}]}`}
		case string(pipeline.StageSelection):
			return fakeollama.Reply{Content: `{"picks":{},"reasons":{}}`}
		}
		return fakeollama.Reply{Content: "Here is a picture of a fox."}
	})
	stdout, stderr, code := e.run("eval", "--failures", "--suite", suite)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []string
	for _, l := range strings.Split(stdout, "\n") {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	for _, want := range []string{"served without revision 0%", "served with revision 100%", "gained by revision +100 pt", "video-down 0→1/1"} {
		if !slices.Contains(rows, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	e.env["CHORUS_PLANNER_REVISE"] = "0"
	if _, stderr, code := e.run("eval", "--failures", "--suite", suite); code != 2 || !strings.Contains(stderr, "planner.revise is 0") {
		t.Fatalf("--failures with planner.revise 0: exit %d: %s", code, stderr)
	}
	e.env["CHORUS_PLANNER_REVISE"] = "1"
	stdout, stderr, code = e.run("eval", "--failures", "--json", "--suite", suite)
	if code != 0 {
		t.Fatalf("--json exit %d: %s", code, stderr)
	}
	var doc struct {
		Models []eval.FailureSummary `json:"models"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Models) != 1 {
		t.Fatalf("JSON: %v\n%s", err, stdout)
	}
	if m := doc.Models[0]; m.ServedWith != (eval.Rate{Hits: 1, Of: 1}) || m.ServedWithout != (eval.Rate{Of: 1}) ||
		len(m.Results) != 1 || !slices.Equal(m.Results[0].Added, []string{"text-to-image"}) {
		t.Fatalf("JSON summary = %+v", m)
	}
}

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
)

// turnView is what a person sees of a `chorus run --json` turn: the plan,
// the models, the tasks' results, the sizes of their files, and the
// controller's answer (without the workflow Chorus appends, whose timings
// and paths are this run's).
type turnView struct {
	plan, models, results []string
	answer                string
}

func viewOf(t *testing.T, stdout string) turnView {
	t.Helper()
	var v turnView
	for _, ev := range jsonLines(t, stdout) {
		switch ev["type"] {
		case "plan":
			for _, tk := range ev["tasks"].([]any) {
				v.plan = append(v.plan, tk.(map[string]any)["task"].(string))
			}
		case "model":
			v.models = append(v.models, fmt.Sprint(ev["task"], " → ", ev["model"], " · ", ev["endpoint"], " (", ev["provider"], ") · ", ev["reason"]))
		case "task_end":
			r := fmt.Sprint(ev["task"], ": ", ev["status"], " (", ev["provider"], ") ", ev["result"])
			for _, f := range ev["files"].([]any) {
				b, err := os.ReadFile(f.(string))
				if err != nil {
					t.Fatal(err)
				}
				r += fmt.Sprintf(" [%s, %d bytes]", filepath.Ext(f.(string)), len(b))
			}
			v.results = append(v.results, r)
		case "answer":
			v.answer, _, _ = strings.Cut(ev["text"].(string), "\n\n**Workflow**")
		}
	}
	slices.Sort(v.models)
	slices.Sort(v.results)
	return v
}

func (v turnView) String() string {
	return fmt.Sprintf("plan %v\nmodels %v\nresults %v\nanswer %q", v.plan, v.models, v.results, v.answer)
}

// TestRunRecordThenReplay: `chorus run --record` against the fakes, then
// `chorus run --replay` with Ollama and Hugging Face gone, gives the same
// plan, models, results and answer.
func TestRunRecordThenReplay(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","id":1,"dep":[],"args":{"text":"a red kite"}},{"task":"image-to-text","id":2,"dep":[1],"args":{"image":"<resource>-1"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"fast"},{"id":2,"pick":1,"reason":"good captions"}]}`}
		}
		return fakeollama.Reply{Content: "Here is a red kite, and what the captioner saw in it."}
	})
	e.serveSkill("text-to-image")
	e.serveSkill("image-to-text")
	tape := filepath.Join(t.TempDir(), "kite.json")
	stdout, stderr, code := e.run("run", "--json", "--record", tape, "--out", e.out, "draw a red kite and caption it")
	if code != 0 {
		t.Fatalf("recording run: exit %d, stderr %q", code, stderr)
	}
	recorded := viewOf(t, stdout)
	if len(recorded.plan) != 2 || len(recorded.results) != 2 || recorded.answer == "" {
		t.Fatalf("the recorded turn did not run: %v", recorded)
	}

	e.ollama.Stop()
	e.hf.Close()
	e.env["OLLAMA_HOST"] = "http://127.0.0.1:1" // nothing listens there
	out2 := t.TempDir()
	stdout, stderr, code = e.run("run", "--json", "--replay", tape, "--replay-speed", "0", "--out", out2, "draw a red kite and caption it")
	if code != 0 {
		t.Fatalf("replay: exit %d, stderr %q", code, stderr)
	}
	replayed := viewOf(t, stdout)
	if replayed.String() != recorded.String() {
		t.Fatalf("the replay differs:\nrecorded:\n%v\nreplayed:\n%v", recorded, replayed)
	}

	// The plain log (on stderr) says it is a replay; the answer is on stdout.
	stdout, stderr, code = e.run("run", "--replay", tape, "--replay-speed", "0", "--out", out2, "draw a red kite and caption it")
	if code != 0 || !strings.Contains(stderr, "Replaying `"+tape+"`") || !strings.Contains(stdout, "Here is a red kite") {
		t.Fatalf("plain replay: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestReplayBadUsage: a missing or foreign file and a negative speed are
// usage errors (status 2) that say what is wrong.
func TestReplayBadUsage(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	notTape := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notTape, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--replay", filepath.Join(t.TempDir(), "missing.json"), "hi"}, "cannot read the recording"},
		{[]string{"run", "--replay", notTape, "hi"}, "not a Chorus recording"},
		{[]string{"run", "--replay", notTape, "--replay-speed", "-1", "hi"}, "--replay-speed -1"},
	} {
		_, stderr, code := e.run(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q (want %q)", tc.args, code, stderr, tc.want)
		}
	}
}

// TestReplaySpeedZeroKeepsRecordedDurations: --replay-speed 0 does not
// wait, but the tasks still report the time they took when recorded — not
// "in 0 ms" for every one.
func TestReplaySpeedZeroKeepsRecordedDurations(t *testing.T) {
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-speech","id":1,"dep":[],"args":{"text":"good morning"}}]}`}
		}
		return fakeollama.Reply{Content: "Here is the audio."}
	})
	e.serveSkill("text-to-speech")
	for _, m := range []string{"hexgrad/Kokoro-82M", "facebook/mms-tts-eng"} {
		e.hf.Model(m, "text-to-speech").Delay(300 * time.Millisecond)
	}
	tape := filepath.Join(t.TempDir(), "tts.json")
	stdout, stderr, code := e.run("run", "--json", "--record", tape, "--out", e.out, "say good morning")
	if code != 0 {
		t.Fatalf("recording run: exit %d, stderr %q", code, stderr)
	}
	recorded := taskElapsedMS(t, stdout)
	if recorded < 300 {
		t.Fatalf("the recorded task took %v ms, want the fake's 300 at least", recorded)
	}
	e.ollama.Stop()
	e.hf.Close()
	start := time.Now()
	stdout, stderr, code = e.run("run", "--json", "--replay", tape, "--replay-speed", "0", "--out", t.TempDir(), "say good morning")
	if code != 0 {
		t.Fatalf("replay: exit %d, stderr %q", code, stderr)
	}
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Logf("the replay took %s (speed 0 should not wait)", took)
	}
	if got := taskElapsedMS(t, stdout); got < recorded-50 || got > recorded+250 {
		t.Fatalf("the replayed task reports %v ms, want about the recorded %v", got, recorded)
	}
	_, stderr, _ = e.run("run", "--replay", tape, "--replay-speed", "0", "--out", t.TempDir(), "say good morning")
	if strings.Contains(stderr, " in 0 ms") {
		t.Fatalf("the plain log says the replayed task took 0 ms:\n%s", stderr)
	}
}

// TestReplaySpeedZeroKeepsControllerTaskDuration: a task the controller
// does itself reports, replayed without waiting, the time its recorded
// reply took the server.
func TestReplaySpeedZeroKeepsControllerTaskDuration(t *testing.T) {
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"summarization","id":1,"dep":[],"args":{"text":"a long story about a red kite over the sea"}}]}`}
		case "other":
			if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Task 1 summarization") {
				return fakeollama.Reply{Content: "A kite flies over the sea and then it lands on the beach again.", ChunkDelay: 25 * time.Millisecond}
			}
		}
		return fakeollama.Reply{Content: "Here is the summary."}
	})
	tape := filepath.Join(t.TempDir(), "sum.json")
	stdout, stderr, code := e.run("run", "--json", "--record", tape, "--out", e.out, "summarise the story")
	if code != 0 {
		t.Fatalf("recording run: exit %d, stderr %q", code, stderr)
	}
	recorded := taskElapsedMS(t, stdout)
	if recorded < 200 {
		t.Fatalf("the recorded controller task took %v ms; the fake streams for longer", recorded)
	}
	e.ollama.Stop()
	stdout, stderr, code = e.run("run", "--json", "--replay", tape, "--replay-speed", "0", "--out", t.TempDir(), "summarise the story")
	if code != 0 {
		t.Fatalf("replay: exit %d, stderr %q", code, stderr)
	}
	if got := taskElapsedMS(t, stdout); got < recorded*0.8 {
		t.Fatalf("the replayed controller task reports %v ms, want about the recorded %v", got, recorded)
	}
}

// taskElapsedMS is the elapsed_ms of the first task_end event in a
// --json run's stdout.
func taskElapsedMS(t *testing.T, stdout string) float64 {
	t.Helper()
	for _, ev := range jsonLines(t, stdout) {
		if ev["type"] == "task_end" {
			return ev["elapsed_ms"].(float64)
		}
	}
	t.Fatalf("no task_end in %s", stdout)
	return 0
}

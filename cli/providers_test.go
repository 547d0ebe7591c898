package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/sessions"
)

// TestRunTextToImageOnFalAI: `chorus run` plans text-to-image, the Hub
// says fal-ai serves FLUX.1-schnell, the job goes through fal's queue with
// progress, the image is downloaded from fal's CDN into the output
// directory, and the model event, the task's end and the report name the
// provider.
func TestRunTextToImageOnFalAI(t *testing.T) {
	t.Parallel()
	const prompt = "a lighthouse at night, oil painting"
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","id":1,"dep":[],"args":{"text":"` + prompt + `"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"the curated default"}]}`}
		}
		return fakeollama.Reply{Content: "Here is your lighthouse."}
	})
	e.hf.Provide("fal-ai", "black-forest-labs/FLUX.1-schnell", "fal-ai/flux/schnell", "text-to-image").Queue(1, 2)
	opts := e.options()
	opts.ResultTransport = e.hf.DownloadTransport()

	stdout, stderr, code := runCLIWith(opts, "run", "--json", "--out", e.out, "paint "+prompt)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var model, start, end, report map[string]any
	var progress []string
	for _, ev := range jsonLines(t, stdout) {
		switch ev["type"] {
		case "model":
			model = ev
		case "task_start":
			start = ev
		case "task_end":
			end = ev
		case "task_progress":
			progress = append(progress, ev["message"].(string))
		case "report":
			report = ev["report"].(map[string]any)
		}
	}
	if model["model"] != "black-forest-labs/FLUX.1-schnell" || model["endpoint"] != "huggingface" || model["provider"] != nil {
		// The Hub has not been asked yet when the model is chosen: the
		// provider is named when the task starts (TestRunNamesTheProviderThatRan).
		t.Errorf("model event %v, want FLUX.1-schnell on huggingface, no provider claimed yet", model)
	}
	if start["provider"] != "fal-ai" {
		t.Errorf("task_start %v, want fal-ai", start)
	}
	if end["status"] != "ok" || end["provider"] != "fal-ai" {
		t.Fatalf("task_end %v", end)
	}
	files, _ := end["files"].([]any)
	if len(files) != 1 || !strings.HasPrefix(files[0].(string), e.out) {
		t.Fatalf("files %v, want one in %s", files, e.out)
	}
	data, err := os.ReadFile(files[0].(string))
	if err != nil {
		t.Fatal(err)
	}
	if w, _, err := fakehf.ImageSize(data); err != nil || w != len(prompt) {
		t.Errorf("the saved file is %d px wide (%v), want fal's image for the prompt", w, err)
	}
	if !strings.Contains(strings.Join(progress, "\n"), "fal-ai is running fal-ai/flux/schnell") {
		t.Errorf("progress %q, want the queue's", progress)
	}
	tasks, _ := report["tasks"].([]any)
	if len(tasks) != 1 || tasks[0].(map[string]any)["provider"] != "fal-ai" {
		t.Errorf("report tasks %v", tasks)
	}
	if answer, _ := report["answer"].(string); !strings.Contains(answer, "on huggingface (fal-ai)") {
		t.Errorf("the workflow section does not name the provider: %q", answer)
	}
	reqs := e.hf.RequestsFor("black-forest-labs/FLUX.1-schnell")
	if len(reqs) == 0 || reqs[0].Path != "/fal-ai/fal-ai/flux/schnell" || reqs[0].Query != "_subdomain=queue" {
		t.Errorf("requests %+v, want a submit to fal's queue", reqs)
	}
}

// TestModelsListNamesProviders: `chorus models list` shows the provider
// each candidate's huggingface route would use, following
// huggingface.providers.
func TestModelsListNamesProviders(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	// The Hub's mapping, as the catalog knows it.
	e.hf.Provide("fal-ai", "black-forest-labs/FLUX.1-schnell", "fal-ai/flux/schnell", "text-to-image")
	e.hf.Provide("replicate", "black-forest-labs/FLUX.1-schnell", "black-forest-labs/flux-schnell", "text-to-image")
	e.hf.Provide("fal-ai", "black-forest-labs/FLUX.1-dev", "fal-ai/flux/dev", "text-to-image")
	e.hf.Provide("replicate", "black-forest-labs/FLUX.1-dev", "black-forest-labs/flux-dev", "text-to-image")
	e.hf.Provide("nebius", "stabilityai/stable-diffusion-xl-base-1.0", "stability-ai/sdxl", "text-to-image")
	stdout, stderr, code := e.run("models", "list", "text-to-image")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "black-forest-labs/FLUX.1-schnell") || !strings.Contains(stdout, "huggingface (fal-ai)") {
		t.Errorf("list %q, want FLUX.1-schnell through fal-ai", stdout)
	}
	e.env["CHORUS_HUGGINGFACE_PROVIDERS"] = "replicate"
	stdout, _, _ = e.run("models", "list", "text-to-image")
	if !strings.Contains(stdout, "huggingface (replicate)") || strings.Contains(stdout, "(fal-ai)") {
		t.Errorf("with providers [replicate]: %q", stdout)
	}
	if !strings.Contains(stdout, "excluded stabilityai/stable-diffusion-xl-base-1.0") || !strings.Contains(stdout, "none of which is in huggingface.providers (replicate)") {
		t.Errorf("a model replicate does not serve should be excluded with the reason: %q", stdout)
	}
}

// TestRunNamesTheProviderThatRan: the catalog says fal-ai serves
// FLUX.1-schnell, the Hub now lists replicate only. Nothing claims fal-ai:
// the model line names no provider before the Hub is asked, the start,
// the progress, the end, the report, the answer's workflow, the saved
// session and the log name replicate, and `chorus models list` asks the
// Hub as a run would.
func TestRunNamesTheProviderThatRan(t *testing.T) {
	t.Parallel()
	e := lighthouseEnv(t)
	e.hf.Provide("replicate", "black-forest-labs/FLUX.1-schnell", "black-forest-labs/flux-schnell", "text-to-image").Queue(1, 1)
	opts := e.options()
	opts.ResultTransport = e.hf.DownloadTransport()

	stdout, stderr, code := runCLIWith(opts, "run", "--json", "--out", e.out, "paint a lighthouse")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stdout, `"fal-ai"`) {
		t.Errorf("--json claims fal-ai, which never ran:\n%s", stdout)
	}
	for _, ev := range jsonLines(t, stdout) {
		switch ev["type"] {
		case "task_start", "task_end":
			if ev["provider"] != "replicate" {
				t.Errorf("%s names %v, want replicate", ev["type"], ev["provider"])
			}
		case "report":
			tasks, _ := ev["report"].(map[string]any)["tasks"].([]any)
			if len(tasks) != 1 || tasks[0].(map[string]any)["provider"] != "replicate" {
				t.Errorf("report tasks %v", tasks)
			}
		}
	}

	stdout, stderr, code = runCLIWith(opts, "run", "--out", e.out, "paint a lighthouse")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if all := stdout + stderr; strings.Contains(all, "fal-ai") || !strings.Contains(stderr, "start: task 1 text-to-image with black-forest-labs/FLUX.1-schnell on huggingface (replicate)") ||
		!strings.Contains(stderr, "replicate: black-forest-labs/flux-schnell is starting") || !strings.Contains(stdout, "on huggingface (replicate), ") {
		t.Errorf("the run names a provider other than the one that ran:\n%s", all)
	}

	list, err := sessions.Store{Dir: e.env.SessionsDir()}.List()
	if err != nil || len(list) == 0 {
		t.Fatalf("sessions %v %v", list, err)
	}
	for _, sum := range list {
		raw, err := os.ReadFile(filepath.Join(e.env.SessionsDir(), sum.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "fal-ai") || !strings.Contains(string(raw), `"provider": "replicate"`) && !strings.Contains(string(raw), `"provider":"replicate"`) {
			t.Errorf("session %s does not name replicate alone", sum.ID)
		}
	}
	logData, _ := os.ReadFile(filepath.Join(e.env.StateDir(), "chorus.log"))
	if strings.Contains(string(logData), "fal-ai") || !strings.Contains(string(logData), "provider=replicate") {
		t.Errorf("the log names another provider than replicate:\n%s", logData)
	}

	stdout, _, _ = e.run("models", "list", "text-to-image")
	if !strings.Contains(stdout, "black-forest-labs/FLUX.1-schnell\n       huggingface (replicate)") || strings.Contains(stdout, "FLUX.1-schnell\n       huggingface (fal-ai)") {
		t.Errorf("models list, with the Hub listing replicate only:\n%s", stdout)
	}
}

// TestRunWithTheRouterRefused: Hugging Face's router refuses connections.
// `chorus run` says so in one line and skips the task's other candidates
// instead of trying each ("all 7 attempts failed"); --json carries one
// host_down event.
func TestRunWithTheRouterRefused(t *testing.T) {
	t.Parallel()
	e := lighthouseEnv(t)
	// The Hub answers, and lists providers for every candidate.
	e.hf.Provide("fal-ai", "black-forest-labs/FLUX.1-schnell", "fal-ai/flux/schnell", "text-to-image")
	e.hf.Provide("replicate", "black-forest-labs/FLUX.1-schnell", "black-forest-labs/flux-schnell", "text-to-image")
	e.hf.Provide("nebius", "stabilityai/stable-diffusion-xl-base-1.0", "stability-ai/sdxl", "text-to-image")
	e.hf.Provide("fal-ai", "black-forest-labs/FLUX.1-dev", "fal-ai/flux/dev", "text-to-image")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	e.env["CHORUS_HUGGINGFACE_BASE_URL"] = "http://" + dead
	_, stderr, _ := e.run("run", "--no-save", "paint a lighthouse")
	line := "unreachable: Hugging Face's router is unreachable at " + dead + " (connection refused) — its other candidates are skipped this turn"
	if strings.Count(stderr, line) != 1 || strings.Contains(stderr, "attempts failed") || !strings.Contains(stderr, "candidates on "+dead+" skipped") {
		t.Errorf("stderr:\n%s\nwant once: %s", stderr, line)
	}
	stdout, _, _ := e.run("run", "--json", "--no-save", "paint a lighthouse")
	downs := 0
	for _, ev := range jsonLines(t, stdout) {
		if ev["type"] == "host_down" {
			downs++
			if ev["host"] != dead || ev["endpoint"] != "huggingface" || ev["reason"] != "connection refused" {
				t.Errorf("host_down %v", ev)
			}
		}
		if ev["type"] == "task_end" {
			if attempts, _ := ev["attempts"].([]any); len(attempts) != 1 {
				t.Errorf("task_end with %d attempts, want 1: %v", len(attempts), ev)
			}
		}
	}
	if downs != 1 {
		t.Errorf("%d host_down events, want 1", downs)
	}
}

// lighthouseEnv is a cliEnv whose controller plans one text-to-image task
// and picks the curated default.
func lighthouseEnv(t *testing.T) *cliEnv {
	t.Helper()
	return newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","id":1,"dep":[],"args":{"text":"a lighthouse"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"the curated default"}]}`}
		}
		return fakeollama.Reply{Content: "Here is your lighthouse."}
	})
}

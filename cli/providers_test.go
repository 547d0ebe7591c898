package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
)

// TestRunTextToImageOnFalAI: `chorus run` plans text-to-image, the Hub
// says fal-ai serves FLUX.1-schnell, the job goes through fal's queue with
// progress, the image is downloaded from fal's CDN into the output
// directory, and the model event, the task's end and the report name the
// provider.
func TestRunTextToImageOnFalAI(t *testing.T) {
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
	resultTransport = e.hf.DownloadTransport()
	t.Cleanup(func() { resultTransport = nil })

	stdout, stderr, code := runCLI("run", "--json", "--out", e.out, "paint "+prompt)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var model, end, report map[string]any
	var progress []string
	for _, ev := range jsonLines(t, stdout) {
		switch ev["type"] {
		case "model":
			model = ev
		case "task_end":
			end = ev
		case "task_progress":
			progress = append(progress, ev["message"].(string))
		case "report":
			report = ev["report"].(map[string]any)
		}
	}
	if model["model"] != "black-forest-labs/FLUX.1-schnell" || model["endpoint"] != "huggingface" || model["provider"] != "fal-ai" {
		t.Errorf("model event %v, want FLUX.1-schnell on huggingface through fal-ai", model)
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
	newCLIEnv(t, nil)
	stdout, stderr, code := runCLI("models", "list", "text-to-image")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "black-forest-labs/FLUX.1-schnell") || !strings.Contains(stdout, "huggingface (fal-ai)") {
		t.Errorf("list %q, want FLUX.1-schnell through fal-ai", stdout)
	}
	t.Setenv("CHORUS_HUGGINGFACE_PROVIDERS", "replicate")
	stdout, _, _ = runCLI("models", "list", "text-to-image")
	if !strings.Contains(stdout, "huggingface (replicate)") || strings.Contains(stdout, "(fal-ai)") {
		t.Errorf("with providers [replicate]: %q", stdout)
	}
	if !strings.Contains(stdout, "excluded stabilityai/stable-diffusion-xl-base-1.0") || !strings.Contains(stdout, "none of which is in huggingface.providers (replicate)") {
		t.Errorf("a model replicate does not serve should be excluded with the reason: %q", stdout)
	}
}

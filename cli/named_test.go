package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
)

// TestRunNamedHubModel is the report's run: with a vision model pulled
// into Ollama (which hybrid mode ranks first), `chorus run` with a
// request that names a Hub model by the full id `chorus models list`
// prints — or one the catalog does not list, found on the Hub — runs that
// model, and a text task the controller would do itself runs on the model
// named for it.
func TestRunNamedHubModel(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(40, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ request, plan, task, model string }{
		// Not in the catalog: the Hub's model info says what it is.
		{"caption " + img + " with microsoft/git-base-coco please",
			`{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + img + `"}}]}`, "image-to-text", "microsoft/git-base-coco"},
		{"caption " + img + " with Salesforce/blip-image-captioning-large please",
			`{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + img + `"}}]}`, "image-to-text", "Salesforce/blip-image-captioning-large"},
		{"summarise with `sshleifer/distilbart-cnn-12-6`: Chorus plans requests into tasks and runs experts.",
			`{"tasks":[{"task":"summarization","id":1,"dep":[],"args":{"text":"Chorus plans requests into tasks and runs experts."}}]}`, "summarization", "sshleifer/distilbart-cnn-12-6"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
				switch stageOf(req) {
				case "plan":
					return fakeollama.Reply{Content: tc.plan}
				case "select":
					return fakeollama.Reply{Content: `{"picks":{"1":1},"reasons":{"1":"first"}}`}
				}
				return fakeollama.Reply{Content: "A cat."}
			})
			e.ollama.AddModel(fakeollama.Model{Name: "llava:latest", Capabilities: []string{fakeollama.CapCompletion, fakeollama.CapVision}, ParameterSize: "7B"})
			e.env["CHORUS_OLLAMA_EXPERTS"] = "true"
			e.serveSkill("image-to-text")
			e.serveSkill("summarization")
			e.hf.Model("microsoft/git-base-coco", "image-to-text")
			_, stderr, code := e.run("run", "--out", e.out, tc.request)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, want := range []string{"model: task 1 " + tc.task + " → " + tc.model + " on huggingface", "[named]", "done: task 1 " + tc.task + " with " + tc.model} {
				if !strings.Contains(stderr, want) {
					t.Fatalf("the log does not show the named model running (no %q):\n%s", want, stderr)
				}
			}
		})
	}
}

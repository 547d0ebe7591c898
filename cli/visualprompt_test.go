package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
)

// TestRunGroundingThenSegmentation: LLaVA-Plus's grounding then
// interactive segmentation — `chorus run` plans zero-shot detection of
// the phrase the user named, then SAM with the detection's best box
// (<resource>-1 as the box); SAM is sent that box as SAM's processor
// takes it (parameters.input_boxes) and its mask lands in the output
// directory.
func TestRunGroundingThenSegmentation(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "street.png")
	if err := os.WriteFile(img, fakehf.PNG(40, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[` +
				`{"task":"zero-shot-object-detection","id":1,"dep":[],"args":{"image":"` + img + `","labels":"dog, red umbrella"}},` +
				`{"task":"mask-generation","id":2,"dep":[1],"args":{"image":"` + img + `","box":"<resource>-1"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"default"},{"id":2,"pick":1,"reason":"default"}]}`}
		}
		return fakeollama.Reply{Content: "The dog is cut out."}
	})
	e.serveSkill("zero-shot-object-detection")
	e.serveSkill("mask-generation")

	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "cut out the dog in "+img)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	ends := map[float64]map[string]any{}
	for _, ev := range jsonLines(t, stdout) {
		if ev["type"] == "task_end" {
			ends[ev["id"].(float64)] = ev
		}
	}
	if ends[1]["status"] != "ok" || ends[2]["status"] != "ok" {
		t.Fatalf("task ends %v", ends)
	}
	var detect, sam *fakehf.Request
	for _, r := range e.hf.Requests() {
		switch r.Task {
		case "zero-shot-object-detection":
			detect = &r
		case "mask-generation":
			sam = &r
		}
	}
	if detect == nil || sam == nil {
		t.Fatalf("requests %+v", e.hf.Requests())
	}
	var zs struct {
		Parameters struct {
			CandidateLabels []string `json:"candidate_labels"`
		} `json:"parameters"`
	}
	if err := detect.JSON(&zs); err != nil || strings.Join(zs.Parameters.CandidateLabels, "|") != "dog|red umbrella" {
		t.Errorf("detection parameters %+v (%v), want the user's phrases as candidate_labels", zs, err)
	}
	// The fake finds "dog" (0.90) at [0,0,39,29] and "red umbrella"
	// (0.80) at [1,1,38,28]: SAM gets the best box.
	var seg struct {
		Inputs     string `json:"inputs"`
		Parameters struct {
			InputBoxes [][]float64 `json:"input_boxes"`
		} `json:"parameters"`
	}
	if err := sam.JSON(&seg); err != nil || len(seg.Parameters.InputBoxes) != 1 || len(seg.Inputs) == 0 {
		t.Fatalf("SAM body %s (%v)", sam.Body, err)
	}
	if got := seg.Parameters.InputBoxes[0]; len(got) != 4 || got[0] != 0 || got[1] != 0 || got[2] != 39 || got[3] != 29 {
		t.Errorf("input_boxes %v, want [[0 0 39 29]]", seg.Parameters.InputBoxes)
	}
	files, _ := ends[2]["files"].([]any)
	var mask string
	for _, f := range files {
		if p := f.(string); strings.Contains(filepath.Base(p), "mask-generation-2-") {
			mask = p
		}
	}
	if mask == "" {
		t.Fatalf("no mask file among %v", files)
	}
	data, err := os.ReadFile(mask)
	if err != nil {
		t.Fatal(err)
	}
	if w, h, err := fakehf.ImageSize(data); err != nil || w != 40 || h != 30 {
		t.Errorf("mask %dx%d (%v), want the image's size", w, h, err)
	}
}

// TestRunFallbackNamesWhatFailed: when a model's call fails with an error
// that does not name it (models_server wrote the mask where Chorus cannot
// read it), the one line of the failed hop says which model failed and
// which is tried next, so the next does not read as the one that failed.
func TestRunFallbackNamesWhatFailed(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "street.png")
	if err := os.WriteFile(img, fakehf.PNG(40, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, onePlan("mask-generation", `{"image":"`+img+`","point":"10,12"}`))
	jv := fakehf.NewJarvis(t) // public directory neither shared nor served
	for _, id := range []string{"facebook/sam-vit-base", "facebook/sam-vit-huge", "facebook/sam-vit-large", "Zigeng/SlimSAM-uniform-77"} {
		jv.Model(id, "mask-generation")
	}
	e.env["CHORUS_LOCAL_URL"] = jv.URL
	e.env["CHORUS_LOCAL_PROTOCOL"] = "jarvis"
	e.env["CHORUS_INFERENCE_MODE"] = "local"
	_, stderr, _ := e.run("run", "--out", e.out, "--attach", img, "cut out the thing at 10,12")
	m := regexp.MustCompile(`task 1: (\S+): the local server produced \S+ but Chorus cannot read it[^\n]* → (\S+)`).FindStringSubmatch(stderr)
	if m == nil || m[1] == m[2] {
		t.Fatalf("the progress line does not name the model that failed: %q", stderr)
	}
}

// TestDebugShowsImagesSentToVisionController: with --debug, the planning
// prompt in the progress log says how many images went with it, so a user
// can see that an image path typed in the request reached a vision
// controller (and that none goes to a text-only one).
func TestDebugShowsImagesSentToVisionController(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "boats.png")
	if err := os.WriteFile(img, fakehf.PNG(40, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: `{"tasks":[]}`} })
	e.ollama.AddModel(fakeollama.Model{Name: "eyes", ParameterSize: "8B", Capabilities: []string{"completion", "vision"}})
	_, stderr, code := e.run("run", "--debug", "--model", "eyes", "how many boats are in "+img+"?")
	if code != 0 || !strings.Contains(stderr, "(+ 1 image(s) sent to the controller with this prompt)") {
		t.Errorf("exit %d; the vision controller's planning prompt does not say an image went with it: %q", code, stderr)
	}
	_, stderr, _ = e.run("run", "--debug", "how many boats are in "+img+"?")
	if strings.Contains(stderr, "image(s) sent") {
		t.Errorf("a text-only controller was sent an image: %q", stderr)
	}
}

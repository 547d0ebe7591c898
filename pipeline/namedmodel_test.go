package pipeline_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// namedRig is a rig whose image-to-text candidates are two Hugging Face
// captioners and two vision models pulled into a local Ollama: hybrid
// mode ranks llava:latest first, as it did in the report, so only
// the request's naming can make another model run.
func namedRig(t *testing.T, mode pipeline.Selection) *rig {
	t.Helper()
	experts := fakeollama.New(t)
	for _, name := range []string{"llava:latest", "llava:13b"} {
		experts.AddModel(fakeollama.Model{Name: name, Capabilities: []string{fakeollama.CapCompletion, fakeollama.CapVision}, ParameterSize: "7B"})
	}
	experts.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: "a cat on a mat"} })
	r := newRig(t, withEndpoints(ollama.New(ollama.Options{Host: experts.URL})), withOptions(pipeline.Options{ControllerTasks: true, Selection: mode}))
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/captioner-small", "image-to-text")
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"picks":{"1":1},"reasons":{"1":"the controller's pick"}}`}
	}
	return r
}

// TestNamedModelRuns: a model the request names runs its task whatever
// the selection mode and whatever ranks first — named by its full Hub id,
// without its organisation, in another case, in quotes or backticks,
// followed by punctuation, or as an Ollama model with or without its tag.
func TestNamedModelRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ request, want string }{
		{"caption it with test/captioner-small please", "test/captioner-small"},
		{"caption it with `test/captioner-small`.", "test/captioner-small"},
		{`caption it with "TEST/Captioner-Small"!`, "test/captioner-small"},
		{"caption it (captioner-small), thanks", "test/captioner-small"},
		{"use 'test/captioner-big': caption it", "test/captioner-big"},
		{"caption it with llava:13b?", "llava:13b"},
		{"caption it with llava.", "llava:latest"},
		{"caption it with llava:latest", "llava:latest"},
	} {
		for _, mode := range []pipeline.Selection{pipeline.SelectAuto, pipeline.SelectController, pipeline.SelectRanked} {
			t.Run(string(mode)+"/"+tc.request, func(t *testing.T) {
				r := namedRig(t, mode)
				img := r.image("cat.png", 20, 20)
				r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
				if _, err := r.run(context.Background(), pipeline.Turn{Request: tc.request + " " + img}); err != nil {
					t.Fatal(err)
				}
				me := r.model(1)
				if me.Model != tc.want || me.Decided != "named" || !strings.Contains(me.Reason, "names") {
					t.Fatalf("chose %s (%s: %s), want %s because the request names it", me.Model, me.Decided, me.Reason, tc.want)
				}
				if len(me.Candidates) == 0 || me.Candidates[0].ID != tc.want {
					t.Errorf("candidates %+v: the named model is not shown first", me.Candidates)
				}
				if n := r.calls("select"); n != 0 {
					t.Errorf("%d selection calls: the user's choice is not the controller's to make", n)
				}
				if end := r.taskEnd(1); end.Status != pipeline.StatusOK || end.Model != tc.want {
					t.Errorf("task_end = %+v, want it run on %s", end, tc.want)
				}
			})
		}
	}
}

// TestNamedModelNotFooledByPaths: a path the user typed names a file, not
// a model, even when its folders spell a model's id; a piece of a name
// ("captioner") or two names leave the choice to the usual selection.
func TestNamedModelNotFooledByPaths(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "test", "captioner-small")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(20, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, request, decided string }{
		{"a path whose folders spell an id", "caption " + img, "ranked"},
		{"a relative path", "caption ./test/captioner-small and " + img, "ranked"},
		{"two names", "caption " + img + " with test/captioner-small or test/captioner-big", "controller choice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := namedRig(t, pipeline.SelectAuto)
			r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
			if _, err := r.run(context.Background(), pipeline.Turn{Request: tc.request}); err != nil {
				t.Fatal(err)
			}
			if me := r.model(1); me.Decided != tc.decided {
				t.Fatalf("chose %s (%s: %s), want it decided %q", me.Model, me.Decided, me.Reason, tc.decided)
			}
		})
	}
}

// TestNamedModelThatCannotRunSaysWhy: a named model that a constraint
// excludes, that has no route, or that runs another task is not passed
// over in silence: the task's reason (or, for a model of another task,
// a plan note) says why, in one line, and the task runs on what can.
func TestNamedModelThatCannotRunSaysWhy(t *testing.T) {
	t.Parallel()
	t.Run("excluded by a constraint", func(t *testing.T) {
		r := namedRig(t, pipeline.SelectAuto)
		img := r.image("cat.png", 20, 20)
		r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
		cons := pipeline.Constraints{Licenses: []string{"mit"}}
		if _, err := r.run(context.Background(), pipeline.Turn{Request: "caption it with test/captioner-small", Constraints: cons}); err != nil {
			t.Fatal(err)
		}
		me := r.model(1)
		want := "test/captioner-small (named in the request) cannot run it: licence apache-2.0 is not in the allow-list (mit) — "
		if me.Model != "test/captioner-big" || !strings.HasPrefix(me.Reason, want) || strings.Contains(me.Reason, "\n") {
			t.Fatalf("chose %s (%s), want test/captioner-big and a reason starting %q", me.Model, me.Reason, want)
		}
		if rep := r.taskEnd(1); rep.Status != pipeline.StatusOK {
			t.Errorf("task_end = %+v", rep)
		}
	})
	t.Run("no route", func(t *testing.T) {
		r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Selection: pipeline.SelectAuto}))
		for _, id := range []string{"test/clip-fancy", "test/clip-mid", "test/clip-plain"} {
			r.hf.Model(id, "text-to-video")
		}
		r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "good morning"}))
		if _, err := r.run(context.Background(), pipeline.Turn{Request: "make a video saying good morning with test/clip-local"}); err != nil {
			t.Fatal(err)
		}
		me := r.model(1)
		if me.Model == "test/clip-local" || !strings.HasPrefix(me.Reason, "test/clip-local (named in the request) cannot run it: ") ||
			!strings.Contains(me.Reason, "command") {
			t.Fatalf("chose %s (%s), want another model and the reason the named one has no route", me.Model, me.Reason)
		}
	})
	t.Run("a model of another task", func(t *testing.T) {
		r := namedRig(t, pipeline.SelectAuto)
		img := r.image("cat.png", 20, 20)
		r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption it with test/clip-fancy"})
		if err != nil {
			t.Fatal(err)
		}
		want := "ignored test/clip-fancy (named in the request): it runs text-to-video, and no task of this plan is one"
		n := 0
		for _, note := range rep.Notes {
			if note == want {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("notes %q, want %q once", rep.Notes, want)
		}
	})
}

// TestNamedHubModelOutsideTheCatalog: a Hub model id the catalog does not
// list, named in the request, is looked up on the Hub (the model info
// `chorus models sync` reads): it runs when the Hub lists it for the task
// and a provider serves it; otherwise one line says why — in the task's
// reason when the Hub lists it for the task, in a plan note when it does
// not, does not know it or cannot be asked, and in inference_mode local,
// which asks the Hub nothing.
func TestNamedHubModelOutsideTheCatalog(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name, id string
		opts     []rigOption
		setup    func(*rig)
		cons     pipeline.Constraints
		// ran is the model that ran the caption; reason the start of its
		// reason, note a plan note.
		ran, reason, note string
	}{
		{name: "served", id: "microsoft/git-base-coco",
			setup: func(r *rig) { r.hf.Model("microsoft/git-base-coco", "image-to-text") },
			ran:   "microsoft/git-base-coco", reason: "microsoft/git-base-coco is the model the request names"},
		{name: "served by no provider", id: "someone/notebook-captioner-1",
			setup: func(r *rig) {
				r.hf.Describe("someone/notebook-captioner-1", fakehf.HubFacts{PipelineTag: "image-to-text"})
			},
			ran:    "test/captioner-big",
			reason: "someone/notebook-captioner-1 (named in the request) cannot run it: no Inference Provider serves it — "},
		{name: "another task", id: "google/vit-base-patch16-224",
			setup: func(r *rig) { r.hf.Model("google/vit-base-patch16-224", "image-classification") },
			ran:   "test/captioner-big",
			note:  "ignored google/vit-base-patch16-224 (named in the request): the Hub lists it for image-classification, and no task of this plan is one"},
		{name: "unknown to the Hub", id: "nobody/caption-9000", ran: "test/captioner-big",
			note: "nobody/caption-9000 (named in the request) was not used: the Hugging Face Hub knows no such model — check the id"},
		{name: "a licence the Hub's facts do not settle", id: "microsoft/git-base-coco",
			setup: func(r *rig) { r.hf.Model("microsoft/git-base-coco", "image-to-text") },
			cons:  pipeline.Constraints{Licenses: []string{"apache-2.0"}}, ran: "test/captioner-small",
			reason: "microsoft/git-base-coco (named in the request) cannot run it: licence unknown, so it cannot be shown to be in the allow-list (apache-2.0) (the Hub's facts) — "},
		{name: "the Hub unreachable", id: "microsoft/git-base-coco",
			opts:  []rigOption{withLookup(&skills.Hub{BaseURL: dead})},
			setup: func(r *rig) { r.hf.Model("microsoft/git-base-coco", "image-to-text") },
			ran:   "test/captioner-big",
			note:  "microsoft/git-base-coco (named in the request) was not used: the Hugging Face Hub could not be asked about it (asking the Hugging Face Hub at " + dead + " about microsoft/git-base-coco: no answer — cannot reach the Hub"},
		{name: "inference_mode local", id: "microsoft/git-base-coco",
			opts: []rigOption{withMode(endpoints.ModeLocal)},
			note: "microsoft/git-base-coco (named in the request) was not used: it is not in the catalog, and inference_mode local asks the Hugging Face Hub nothing — add it to a skill's models, or use inference_mode hybrid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, append([]rigOption{withHub(), withOptions(pipeline.Options{ControllerTasks: true, Selection: pipeline.SelectAuto})}, tc.opts...)...)
			r.hf.Model("test/captioner-big", "image-to-text")
			r.hf.Model("test/captioner-small", "image-to-text")
			if tc.setup != nil {
				tc.setup(r)
			}
			img := r.image("cat.png", 20, 20)
			r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
			rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " with " + tc.id + " please", Constraints: tc.cons})
			if err != nil {
				t.Fatal(err)
			}
			me := r.model(1)
			if me.Model != tc.ran || (tc.ran != "" && r.taskEnd(1).Model != tc.ran) || !strings.HasPrefix(me.Reason, tc.reason) || strings.Contains(me.Reason, "\n") {
				t.Errorf("task 1 chose %q (%s: %s), want %q and a reason starting %q", me.Model, me.Decided, me.Reason, tc.ran, tc.reason)
			}
			notes := 0
			for _, n := range rep.Notes {
				if tc.note != "" && strings.HasPrefix(n, tc.note) {
					notes++
				} else if strings.Contains(n, tc.id) {
					t.Errorf("an unexpected note on %s: %q", tc.id, n)
				}
			}
			if tc.note != "" && notes != 1 {
				t.Errorf("notes %q, want one starting %q", rep.Notes, tc.note)
			}
		})
	}
}

package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// imagesIn collects the images of a controller request.
func imagesIn(req api.ChatRequest) []api.ImageData {
	var out []api.ImageData
	for _, m := range req.Messages {
		out = append(out, m.Images...)
	}
	return out
}

// TestTypedImageReachesVisionController: an image whose path the user
// typed (not attached) is shown to a vision controller when it plans and
// answers, is reported as named, and — kept as the turn's resource — is
// shown again in a later turn; a path the turn may not read (none typed)
// is not.
func TestTypedImageReachesVisionController(t *testing.T) {
	t.Parallel()
	r := newRig(t, withControllerCaps(fakeollama.CapCompletion, fakeollama.CapVision))
	img := r.image("harbour.png", 19, 11) // the rig types its path into the request
	data, _ := os.ReadFile(img)
	real, _ := filepath.EvalSymlinks(img)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "what is in this picture?"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Named, []string{real}) || len(rep.Attachments) != 0 {
		t.Fatalf("named %v attachments %v, want the typed image named", rep.Named, rep.Attachments)
	}
	var plan, answer bool
	for _, req := range r.chatRequests() {
		has := slices.ContainsFunc(imagesIn(req), func(d api.ImageData) bool { return string(d) == string(data) })
		switch stage(&req) {
		case "plan":
			plan = plan || has
		case "respond":
			answer = answer || has
		}
	}
	if !plan || !answer {
		t.Fatalf("the typed image reached planning %v, answering %v; want both", plan, answer)
	}

	// A later turn of the chat: the chat log carries it as the user's
	// resource, and the chat remembers the user typed it (Earlier).
	r2 := newRig(t, withControllerCaps(fakeollama.CapCompletion, fakeollama.CapVision))
	_, err = r2.eng.Run(context.Background(), pipeline.Turn{Request: "and make it brighter?", History: []pipeline.Message{
		{Role: "user", Content: "what is in this picture? " + img, Resources: rep.Named},
		{Role: "assistant", Content: "A harbour."},
	}, Earlier: []pipeline.Given{{Request: "what is in this picture? " + img}}}, func(pipeline.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	reqs := r2.chatRequests()
	if len(reqs) == 0 || !slices.ContainsFunc(imagesIn(reqs[0]), func(d api.ImageData) bool { return string(d) == string(data) }) {
		t.Fatal("a later turn's planning did not see the image named earlier")
	}
}

// TestTypedImageNotForTextController: a text-only controller gets no
// images, and a typed path of a file that is not media is not named.
func TestTypedImageNotForTextController(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.image("harbour.png", 19, 11)
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "look at " + notes})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Named) != 1 || filepath.Base(rep.Named[0]) != "harbour.png" {
		t.Errorf("named %v, want only the image", rep.Named)
	}
	for _, req := range r.chatRequests() {
		if n := len(imagesIn(req)); n != 0 {
			t.Fatalf("%s request sent %d images to a text-only controller", stage(&req), n)
		}
	}
}

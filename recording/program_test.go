package recording_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/skills"
)

// TestRecordThenReplayAProgram: a turn whose expert is a program the user
// declared — offered by discovery, named in the request — is recorded
// and replays the same (the offer, the choice, the result) with the
// program gone.
func TestRecordThenReplayAProgram(t *testing.T) {
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat on PATH")
	}
	const req = "summarise «the tide comes in twice a day» with shout"
	oll := fakeollama.New(t)
	oll.AddModel(fakeollama.Model{Name: "ctl", Capabilities: []string{fakeollama.CapCompletion}})
	oll.OnChat(func(r *api.ChatRequest) fakeollama.Reply {
		if pipeline.PromptStage(r.Messages[len(r.Messages)-1].Content) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: `{"tasks":[{"task":"summarization","id":1,"dep":[],"args":{"text":"the tide comes in twice a day"}}]}`}
		}
		return fakeollama.Reply{Content: "Shout said it back."}
	})
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controller.New(oll.URL, "ctl", controller.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	programs := command.New(command.Options{Catalog: cat, Programs: []skills.Program{{Name: "shout", Program: "cat",
		Tasks: []string{"summarization"}, Stdin: "{text}", License: "gpl-3.0", Size: "1MB"}}})
	if err := programs.Err(); err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal, builtin.New(), programs),
		pipeline.Options{OutputDir: t.TempDir(), ControllerTasks: true, TaskTimeout: 20 * time.Second})

	path := filepath.Join(t.TempDir(), "program.json")
	rec := recording.NewRecorder(path, recording.Header{Chorus: "test"})
	rec.BeginTurn(req, nil)
	recorded := run(t, rec.Engine(eng), req)
	if len(recorded.results) != 1 || recorded.results[0] != "ok (): the tide comes in twice a day" ||
		!strings.Contains(strings.Join(recorded.models, ""), "summarization → shout · command") {
		t.Fatalf("the turn did not run the declared program: %+v", recorded)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	oll.Stop()

	r, err := recording.Open(path, recording.Pace{Speed: 0})
	if err != nil {
		t.Fatal(err)
	}
	rcat, _ := r.ChooseCatalog(cat)
	replayEng, err := r.Engine(rcat, pipeline.Options{OutputDir: t.TempDir(), TaskTimeout: 20 * time.Second, ControllerTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	if replayed := run(t, replayEng, req); !recorded.equal(replayed) {
		t.Fatalf("the replay differs:\nrecorded %+v\nreplayed %+v", recorded, replayed)
	}
}

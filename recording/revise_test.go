package recording_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
)

// TestRecordThenReplayRevision: a turn whose plan was revised (the video
// model failed, the revision captioned the picture it drew instead)
// replays with the same revision, tasks and answer: the revision call is
// recorded under its stage marker, and planner.revise with the header.
func TestRecordThenReplayRevision(t *testing.T) {
	w := newWorld(t)
	w.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		switch pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) {
		case string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-video","id":1,"dep":[],"args":{"text":"a lighthouse at dusk"}}]}`}
		case string(pipeline.StageRevision):
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[{"task":"text-to-image","id":2,"dep":[],"args":{"text":"a lighthouse at dusk"}}]}`}
		case string(pipeline.StageSelection):
			return fakeollama.Reply{Content: `{"picks":{},"reasons":{}}`}
		}
		return fakeollama.Reply{Content: "No video model answered; here is a picture of the lighthouse."}
	})
	opts := w.eng.Options()
	opts.Revise = 1
	eng := pipeline.New(w.eng.Controller(), w.cat, w.eng.Router(), opts)

	path := filepath.Join(t.TempDir(), "revised.json")
	rec := recording.NewRecorder(path, recording.Header{Chorus: "test"})
	turn := func(eng *pipeline.Engine) (revs []string, ends []string, answer string) {
		t.Helper()
		rep, err := eng.Run(context.Background(), pipeline.Turn{Request: "a video of a lighthouse at dusk"}, func(ev pipeline.Event) {
			switch ev := ev.(type) {
			case pipeline.PlanRevisionEvent:
				// Ids and skills: a replayed expert error keeps its
				// class, not every word of the server's message.
				ev.After[0].Error = ""
				revs = append(revs, ev.String())
			case pipeline.TaskEndEvent:
				ends = append(ends, ev.Task+" "+ev.Status)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		answer, _, _ = strings.Cut(rep.Answer, "\n\n**Workflow**")
		return revs, ends, answer
	}
	rec.BeginTurn("a video of a lighthouse at dusk", nil)
	revs, ends, answer := turn(rec.Engine(eng))
	if len(revs) != 1 || !slices.Equal(ends, []string{"text-to-video error", "text-to-image ok"}) {
		t.Fatalf("the recorded turn was not revised as scripted: %v %v", revs, ends)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	w.ollama.Stop()
	w.hf.Close()

	r, err := recording.Open(path, recording.Pace{Speed: 0})
	if err != nil {
		t.Fatal(err)
	}
	if r.Revise != 1 {
		t.Fatalf("the header does not keep planner.revise: %+v", r.Recording)
	}
	cat, _ := r.ChooseCatalog(w.cat)
	replayEng, err := r.Engine(cat, pipeline.Options{OutputDir: t.TempDir(), TaskTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	revs2, ends2, answer2 := turn(replayEng)
	if !slices.Equal(revs, revs2) || !slices.Equal(ends, ends2) || answer != answer2 {
		t.Fatalf("the replay differs:\nrecorded %v %v %q\nreplayed %v %v %q", revs, ends, answer, revs2, ends2, answer2)
	}
}

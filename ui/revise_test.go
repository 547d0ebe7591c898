package ui

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/turnview"
)

// TestEarlyAnswerThenRevisionInTheTUI: the TUI with config.yaml's defaults
// (response.early on, planner.revise 1) and every video model down. The
// answer starts while the video is made; the video fails; a line corrects
// the answer, the plan is revised to a still image, and the answer goes on
// with it — on the screen, in the turn's panes and in the saved session.
func TestEarlyAnswerThenRevisionInTheTUI(t *testing.T) {
	env := newTestEnv(t)
	const early, goOn = "Here is your fox video.", "The video model is down, so here is a still image instead."
	answering := make(chan struct{})
	var once sync.Once
	env.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		switch planStage(req) {
		case pipeline.StagePlanning:
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-video","args":{"text":"a red fox running"}}]}`}
		case pipeline.StageRevision:
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","args":{"text":"a red fox running"}}]}`}
		case pipeline.StageSelection:
			return fakeollama.Reply{Content: `{"picks":{},"reasons":{}}`}
		}
		if strings.Contains(last, "Results of the tasks the revision added") {
			return fakeollama.Reply{Content: goOn}
		}
		once.Do(func() { close(answering) })
		return fakeollama.Reply{Content: early}
	})
	hf := fakehf.New(t)
	hf.RequireToken("hf_test")
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"text-to-video", "text-to-image"} {
		s, _ := cat.Skill(task)
		for _, m := range s.Models {
			if !m.ServedBy(skills.EndpointHuggingFace) {
				continue
			}
			mb := hf.Model(m.ID, task)
			if task == "text-to-video" {
				// Down — and saying so only once the answer has started,
				// as a slow video model does.
				mb.Respond(func(*http.Request, []byte) (int, string, []byte) {
					select {
					case <-answering:
					case <-time.After(guard):
					}
					return http.StatusInternalServerError, "application/json", []byte(`{"error":"CUDA out of memory"}`)
				})
			}
		}
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
		huggingface.New(huggingface.Options{BaseURL: hf.URL, Token: "hf_test", HTTPClient: hf.Client()}))
	env.eng = pipeline.New(env.eng.Controller(), cat, router, pipeline.Options{OutputDir: env.out, ControllerTasks: true,
		EarlyAnswer: env.cfg.EarlyAnswer(), Revise: env.cfg.Planner.Revise})
	env.cfg.InferenceMode, env.cfg.HuggingFace.Token = "hybrid", "hf_test"

	s := startSession(t, env.model(t), 100, 40)
	s.ready()
	s.submit("make a short video of a red fox running")
	s.wait("the turn", turnsDone(1))
	m := s.finish()

	said := regexp.MustCompile(`(?s)^` + regexp.QuoteMeta(early) + `\n\n_Correction: task 1 \(text-to-video\) failed, so \S+\.mp4 was not produced: [^\n]+\._\n\n` +
		regexp.QuoteMeta(goOn) + `\n\n\*\*Workflow\*\*.*Revised after task 1 \(text-to-video\) failed`)
	tr := m.turns[0]
	if tr.Err != nil || len(tr.Revisions) != 1 || len(tr.Tasks) != 2 || tr.Tasks[0].Status != turnview.TaskFailed || tr.Tasks[1].Status != turnview.TaskDone ||
		!said.MatchString(tr.Answer) {
		t.Fatalf("turn: err %v, revisions %+v, %d tasks, answer:\n%s", tr.Err, tr.Revisions, len(tr.Tasks), tr.Answer)
	}
	saved := savedTurns(t, m)
	if len(saved) != 1 || len(saved[0].Revisions) != 1 || !said.MatchString(saved[0].Answer) || len(saved[0].Generated()) != 1 {
		t.Fatalf("saved turn: %+v", saved)
	}
	f := frame(m)
	for _, want := range []string{"still image instead", "✗ #1 text-to-video", "✓ #2 text-to-image"} {
		if !strings.Contains(f, want) {
			t.Errorf("screen lacks %q:\n%s", want, f)
		}
	}
}

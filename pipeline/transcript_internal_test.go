package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/endpoints/retrieval"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// tokensOf estimates tokens as the issue that set the budget measured
// them: four bytes of prompt text each.
func tokensOf(msgs []controller.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n / 4
}

// TestPlanningPromptBudget: with the default catalog, the planning call —
// the head, an attachment and a request — stays within 1,500 tokens in the
// modes a user with a token runs, and lists only skills that can run.
func TestPlanningPromptBudget(t *testing.T) {
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctl, _ := controller.New("http://127.0.0.1:1", "ctl", controller.Options{Timeout: time.Second})
	for _, mode := range []endpoints.Mode{endpoints.ModeHybrid, endpoints.ModeHuggingFace} {
		t.Run(string(mode), func(t *testing.T) {
			// The endpoints a default configuration with a token has:
			// retrieval from Wikipedia is on by default.
			router := endpoints.NewRouter(mode, builtin.New(), command.New(command.Options{}), huggingface.New(huggingface.Options{Token: "hf_x"}),
				retrieval.New(retrieval.Options{WikipediaURL: retrieval.DefaultWikipediaURL}))
			e := New(ctl, cat, router, Options{ControllerTasks: true})
			turn := Turn{Request: "make /home/ann/street.png look like autumn and write an Instagram post about it",
				Attachments: []string{"/home/ann/street.png"}}
			tr := e.newTurnRun(context.Background(), turn, nil)
			msgs := tr.script.With(tr.planner.Message(context.Background()))
			n := tokensOf(msgs)
			if n > 1500 {
				t.Errorf("the planning prompt is %d tokens, over 1,500", n)
			}
			t.Logf("planning prompt: %d tokens", n)
			runnable, unavailable := e.availability(context.Background())
			head := msgs[0].Content
			for _, s := range runnable {
				if !strings.Contains(head, "\n- "+s.Name+"(") {
					t.Errorf("runnable skill %s is not listed", s.Name)
				}
			}
			for _, name := range unavailable {
				if strings.Contains(head, "\n- "+name+"(") {
					t.Errorf("%s cannot run in %s mode, yet it is listed in full", name, mode)
				}
			}
			if len(unavailable) == 0 {
				t.Error("some skills need a local server; none were found unavailable")
			}
		})
	}
}

// TestHeadIsStable: two turns of a session start their controller calls
// with the same bytes, so the server's prompt cache holds the head.
func TestHeadIsStable(t *testing.T) {
	cat, _ := skills.Embedded()
	ctl, _ := controller.New("http://127.0.0.1:1", "ctl", controller.Options{Timeout: time.Second})
	e := New(ctl, cat, endpoints.NewRouter(endpoints.ModeHybrid, builtin.New()), Options{ControllerTasks: true})
	a := e.newTurnRun(context.Background(), Turn{Request: "zebra-7731"}, nil).script.With()
	b := e.newTurnRun(context.Background(), Turn{Request: "okapi-1193", History: []flow.Message{{Role: "user", Content: "zebra-7731"}}}, nil).script.With()
	if a[0].Content != b[0].Content || a[0].Role != "system" {
		t.Fatal("the head changed between turns")
	}
	if strings.Contains(b[0].Content, "zebra") || strings.Contains(b[0].Content, "okapi") {
		t.Fatal("the request or the chat log leaked into the head")
	}
	if len(b) != 2 || b[1].Content != "zebra-7731" {
		t.Fatalf("the chat log should follow the head: %+v", b[1:])
	}
}

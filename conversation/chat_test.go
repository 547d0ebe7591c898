package conversation_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// rig is a service over a fake Ollama whose planner answers with no
// tasks and whose answers are numbered.
type rig struct {
	srv  *fakeollama.Server
	svc  *conversation.Service
	dir  string
	n    atomic.Int64
	hold chan struct{} // when set, answers wait for it
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{srv: fakeollama.New(t), dir: filepath.Join(t.TempDir(), "sessions")}
	r.srv.AddModel(fakeollama.Model{Name: "ctl"})
	r.srv.AddModel(fakeollama.Model{Name: "other"})
	r.srv.OnChatContext(func(ctx context.Context, req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		if r.hold != nil {
			select {
			case <-r.hold:
			case <-ctx.Done():
			}
		}
		return fakeollama.Reply{Content: fmt.Sprintf("Answer %d.", r.n.Add(1))}
	})
	ctl, err := controller.New(r.srv.URL, "ctl", controller.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal), pipeline.Options{OutputDir: t.TempDir(), ControllerTasks: true})
	r.svc, err = conversation.New(conversation.Options{Engine: eng, Dir: r.dir})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func discard(pipeline.Event) {}

func requests(turns []conversation.Record) string {
	var out []string
	for _, t := range turns {
		out = append(out, t.Request)
	}
	return strings.Join(out, ",")
}

// TestRunRecordsAndSaves: a turn's record is the one the session keeps
// and saves, with the history of the turns before it.
func TestRunRecordsAndSaves(t *testing.T) {
	r := newRig(t)
	chat := r.svc.Chat(conversation.ChatOptions{})
	var events int
	res := chat.Run(context.Background(), conversation.Request{Request: "hello", Check: true}, func(pipeline.Event) { events++ })
	if !res.Ran || res.Err != nil || !res.Saved || res.Record.Answer == "" || res.Record.ID == "" || events == 0 {
		t.Fatalf("result: %+v", res)
	}
	res = chat.Run(context.Background(), conversation.Request{Request: "again"}, discard)
	if res.Err != nil || res.Session.Len() != 2 {
		t.Fatalf("second turn: %+v", res)
	}
	back, err := r.svc.Open(chat.Session().ID())
	if err != nil || requests(back.Turns()) != "hello,again" || back.Model() != "ctl" || back.Title() != "hello" {
		t.Fatalf("saved: %v %s", err, requests(back.Turns()))
	}
	hist := r.srv.ChatRequests()
	var plan string
	for _, req := range hist {
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning) {
			plan = fmt.Sprint(req.Messages)
		}
	}
	if !strings.Contains(plan, "hello") || !strings.Contains(plan, "Answer 1.") {
		t.Fatalf("the second turn's planner lacks the first turn: %s", plan)
	}
}

// TestCheckFailureRecordsNothing: with the controller server down a
// checked turn does not run, says why in a fatal event, and saves nothing.
func TestCheckFailureRecordsNothing(t *testing.T) {
	r := newRig(t)
	r.srv.Stop()
	chat := r.svc.Chat(conversation.ChatOptions{})
	var fatal string
	res := chat.Run(context.Background(), conversation.Request{Request: "hello", Check: true}, func(ev pipeline.Event) {
		if e, ok := ev.(pipeline.ErrorEvent); ok && e.Fatal {
			fatal = e.Message
		}
	})
	if res.Ran || !errors.Is(res.Err, controller.ErrUnreachable) || !strings.Contains(fatal, "ollama serve") || res.Saved {
		t.Fatalf("result: %+v, fatal %q", res, fatal)
	}
	if list, _ := r.svc.List(); len(list) != 0 {
		t.Fatalf("a session was saved: %+v", list)
	}
}

// TestTwoChatsOneSession: two chats on one session (the TUI and a
// headless run, or two ssh windows) never lose each other's turns; each
// learns of the other's before its next turn, with where they go.
func TestTwoChatsOneSession(t *testing.T) {
	r := newRig(t)
	a := r.svc.Chat(conversation.ChatOptions{})
	if res := a.Run(context.Background(), conversation.Request{Request: "a1"}, discard); res.Err != nil {
		t.Fatal(res.Err)
	}
	b := r.svc.Chat(conversation.ChatOptions{})
	if resumed, err := b.Continue(); !resumed || err != nil {
		t.Fatalf("continue: %v %v", resumed, err)
	}
	b.Run(context.Background(), conversation.Request{Request: "b1"}, discard)
	var synced []conversation.Sync
	res := a.Run(context.Background(), conversation.Request{Request: "a2", Synced: func(s conversation.Sync) { synced = append(synced, s) }}, discard)
	if len(synced) != 1 || len(synced[0].Added) != 1 || synced[0].Added[0].Record.Request != "b1" || synced[0].Added[0].Before != "" {
		t.Fatalf("synced: %+v", synced)
	}
	if requests(res.Session.Turns()) != "a1,b1,a2" {
		t.Fatalf("a's session: %s", requests(res.Session.Turns()))
	}
	// b saves a turn while a still holds an older copy: a's save merges.
	b.Run(context.Background(), conversation.Request{Request: "b2"}, discard)
	if _, err := a.Session().Save(); err != nil {
		t.Fatal(err)
	}
	back, _ := r.svc.Open(a.Session().ID())
	if requests(back.Turns()) != "a1,b1,a2,b2" {
		t.Fatalf("on disk: %s", requests(back.Turns()))
	}
}

// TestTurnsAtOnceOnOneSession: chats of one session running turns at the
// same time — each turn is saved.
func TestTurnsAtOnceOnOneSession(t *testing.T) {
	r := newRig(t)
	first := r.svc.Chat(conversation.ChatOptions{})
	first.Run(context.Background(), conversation.Request{Request: "seed"}, discard)
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		c := r.svc.Chat(conversation.ChatOptions{})
		if _, err := c.Continue(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if res := c.Run(context.Background(), conversation.Request{Request: fmt.Sprintf("r%d", i)}, discard); res.SaveErr != nil {
				t.Error(res.SaveErr)
			}
		})
	}
	wg.Wait()
	back, _ := r.svc.Open(first.Session().ID())
	if back.Len() != n+1 {
		t.Fatalf("%d turns saved, want %d: %s", back.Len(), n+1, requests(back.Turns()))
	}
}

// TestCloseKeepsARunningTurn: closing a chat mid-turn cancels the turn and
// saves it as cancelled.
func TestCloseKeepsARunningTurn(t *testing.T) {
	r := newRig(t)
	r.hold = make(chan struct{})
	chat := r.svc.Chat(conversation.ChatOptions{})
	started := make(chan struct{})
	var once sync.Once
	done := make(chan conversation.Result, 1)
	go func() {
		done <- chat.Run(context.Background(), conversation.Request{Request: "slow"}, func(ev pipeline.Event) {
			if _, ok := ev.(pipeline.StageEvent); ok {
				once.Do(func() { close(started) })
			}
		})
	}()
	<-started
	if err := chat.Close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	res := <-done
	back, err := r.svc.Open(chat.Session().ID())
	if err != nil || back.Len() != 1 || !back.Turns()[0].Cancelled || !res.Record.Cancelled {
		t.Fatalf("after close: %v %+v", err, back.Turns())
	}
}

// TestNoSaveAndModel: --no-save keeps turns in memory; a session opened
// with its own model gives the chat that model.
func TestNoSaveAndModel(t *testing.T) {
	r := newRig(t)
	keep := r.svc.Chat(conversation.ChatOptions{})
	keep.SetModel("other")
	keep.Run(context.Background(), conversation.Request{Request: "hi"}, discard)

	chat := r.svc.Chat(conversation.ChatOptions{NoSave: true})
	if _, err := chat.Open("latest"); err != nil || chat.Model() != "other" {
		t.Fatalf("open: %v, model %s", err, chat.Model())
	}
	res := chat.Run(context.Background(), conversation.Request{Request: "not kept"}, discard)
	if res.Saved || res.Session.Len() != 2 {
		t.Fatalf("result: %+v", res)
	}
	if back, _ := r.svc.Open(keep.Session().ID()); back.Len() != 1 {
		t.Fatalf("--no-save saved: %s", requests(back.Turns()))
	}
	if _, err := r.svc.Open("nope"); !errors.Is(err, conversation.ErrNotFound) || !strings.Contains(err.Error(), r.dir) {
		t.Fatalf("missing session: %v", err)
	}
}

// TestPlanOnlyKeepsNothing: a plan-only turn plans with the session's
// history but is no turn of it: nothing is added or saved, so the next
// turn's history and a later Continue do not see it.
func TestPlanOnlyKeepsNothing(t *testing.T) {
	r := newRig(t)
	chat := r.svc.Chat(conversation.ChatOptions{})
	res := chat.Run(context.Background(), conversation.Request{Request: "plan this", PlanOnly: true}, discard)
	if res.Err != nil || res.Saved || res.Session.Len() != 0 {
		t.Fatalf("plan-only: err %v saved %v, %d turn(s)", res.Err, res.Saved, res.Session.Len())
	}
	next := r.svc.Chat(conversation.ChatOptions{})
	if resumed, err := next.Continue(); resumed || err != nil {
		t.Fatalf("continue after a plan-only turn: resumed %v, err %v", resumed, err)
	}
	chat.Run(context.Background(), conversation.Request{Request: "answer this"}, discard)
	chat.Run(context.Background(), conversation.Request{Request: "and plan that", PlanOnly: true}, discard)
	back, err := r.svc.Open(chat.Session().ID())
	if err != nil || requests(back.Turns()) != "answer this" {
		t.Fatalf("saved turns %v (%v), want only the answered one", err, back)
	}
}

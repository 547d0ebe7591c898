package conversation_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
)

// watcher is an Observer that keeps what it was told.
type watcher struct {
	mu             sync.Mutex
	opened, closed int
	started        int
	events         []string
	ended          []conversation.Result
}

func (w *watcher) ChatOpened() { w.mu.Lock(); w.opened++; w.mu.Unlock() }
func (w *watcher) ChatClosed() { w.mu.Lock(); w.closed++; w.mu.Unlock() }
func (w *watcher) TurnStarted() conversation.TurnObserver {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started++
	return turnWatcher{w}
}

type turnWatcher struct{ w *watcher }

func (t turnWatcher) Event(ev pipeline.Event) {
	t.w.mu.Lock()
	t.w.events = append(t.w.events, ev.Type())
	t.w.mu.Unlock()
}

func (t turnWatcher) Ended(res conversation.Result) {
	t.w.mu.Lock()
	t.w.ended = append(t.w.ended, res)
	t.w.mu.Unlock()
}

// TestDrainLetsTurnsFinish: once a drain begins no turn starts (the
// front end is told why), the turn in flight goes on to its answer and is
// saved, and Wait returns when it has — or when its context ends first.
// An observer sees the chats and the turn that ran, not the one refused.
func TestDrainLetsTurnsFinish(t *testing.T) {
	r := newRig(t)
	r.hold = make(chan struct{})
	drain := &conversation.Drain{}
	w := &watcher{}
	svc, err := conversation.New(conversation.Options{Engine: r.svc.Engine(), Dir: r.dir, Drain: drain, Observer: w})
	if err != nil {
		t.Fatal(err)
	}
	busy, idle := svc.Chat(conversation.ChatOptions{}), svc.Chat(conversation.ChatOptions{})
	done := make(chan conversation.Result, 1)
	go func() { done <- busy.Run(context.Background(), conversation.Request{Request: "first"}, discard) }()
	deadline := time.Now().Add(10 * time.Second)
	for drain.Running() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the turn never started")
		}
		time.Sleep(time.Millisecond)
	}

	drain.Begin()
	var said []pipeline.Event
	refused := idle.Run(context.Background(), conversation.Request{Request: "second"}, func(ev pipeline.Event) { said = append(said, ev) })
	if refused.Ran || !errors.Is(refused.Err, conversation.ErrDraining) {
		t.Fatalf("a turn asked for during the drain: ran %v, %v", refused.Ran, refused.Err)
	}
	if len(said) != 1 || said[0].(pipeline.ErrorEvent).Message != conversation.ErrDraining.Error() || !said[0].(pipeline.ErrorEvent).Fatal {
		t.Fatalf("the front end was told %+v", said)
	}
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := drain.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with a turn in flight: %v", err)
	}

	close(r.hold)
	if err := drain.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Wait returned: the turn has ended and its session is on disk.
	list, err := svc.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions saved when Wait returned: %v %v", list, err)
	}
	saved, err := svc.Open(list[0].ID)
	if err != nil || len(saved.Turns()) != 1 || saved.Turns()[0].Answer != "Answer 1." {
		t.Fatalf("the saved session: %v", err)
	}
	res := <-done
	if res.Err != nil || !res.Saved || res.Report.Answer != "Answer 1." {
		t.Fatalf("the turn in flight: %v, saved %v, %+v", res.Err, res.Saved, res.Report)
	}

	for _, c := range []*conversation.Chat{busy, idle, busy} { // closed twice: told once
		_ = c.Close(time.Second)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opened != 2 || w.closed != 2 || w.started != 1 || len(w.ended) != 1 || w.ended[0].Report.Answer != "Answer 1." {
		t.Fatalf("observer: opened %d closed %d started %d ended %d", w.opened, w.closed, w.started, len(w.ended))
	}
	if w.events[0] != "stage" || w.events[len(w.events)-1] != "report" {
		t.Fatalf("observer events: %v", w.events)
	}
}

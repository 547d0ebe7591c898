package conversation

import (
	"context"
	"sync"
	"time"

	"github.com/chorusai/chorus/pipeline"
)

// Warmer keeps the controller's prompt cache warm for a chat: Start sends
// the stable head of the controller conversation (Engine.Warm) in the
// background while the user is still typing — when the chat opens, after
// the controller model changes — and Stop cancels it when a turn starts,
// so a request never waits behind it. At most one warm-up runs at a time;
// a new Start replaces the one in flight. The zero Warmer is ready, and
// its methods are safe for concurrent use. A Service has one (its chats'
// Chat.Warm and Chat.Run use it); `chorus serve --ssh` gives every chat's
// service the server's own (Options.Warmer) and starts it once, when the
// server starts: the chats share the engine, and so the head.
type Warmer struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	// runs counts the warm-ups that completed, for tests.
	runs int
}

// warmTimeout bounds a warm-up: a slow CPU prefills a long head in tens
// of seconds; beyond this something else is wrong, and the first turn
// will say what.
const warmTimeout = 3 * time.Minute

// Start cancels a warm-up in flight and starts warming eng's controller
// with history (the chat's log, whose messages follow the head in every
// call of its next turn).
func (w *Warmer) Start(eng *pipeline.Engine, history []pipeline.Message) {
	ctx, cancel := context.WithTimeout(context.Background(), warmTimeout)
	done := make(chan struct{})
	w.mu.Lock()
	if w.cancel != nil {
		w.cancel()
	}
	w.cancel, w.done = cancel, done
	w.mu.Unlock()
	go func() {
		defer close(done)
		defer cancel()
		if _, err := eng.Warm(ctx, history); err == nil {
			w.mu.Lock()
			w.runs++
			w.mu.Unlock()
		}
	}()
}

// Stop cancels the warm-up in flight, if any: a turn is starting and must
// not queue behind it. It does not wait (a front end calls it on its UI
// goroutine); the cancelled call ends within moments.
func (w *Warmer) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil {
		w.cancel()
		w.cancel = nil
	}
}

// Wait blocks until the warm-up in flight, if any, has ended, without
// cancelling it.
func (w *Warmer) Wait() {
	w.mu.Lock()
	done := w.done
	w.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Warmed reports how many warm-ups completed.
func (w *Warmer) Warmed() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runs
}

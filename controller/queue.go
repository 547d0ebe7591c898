package controller

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// queue bounds the chat calls in flight on one server to its slots
// (controller.max_concurrent: Ollama's OLLAMA_NUM_PARALLEL, vLLM's
// max_num_seqs, llama-server's --parallel) and serves those that wait fairly
// across chats: round robin, one call per chat per round, so one chat's
// four-task fan-out does not hold back another chat's plan call. A waiting
// caller is told how many chats are served before it, and leaves the queue
// the moment its context ends (Ctrl+C).
type queue struct {
	mu    sync.Mutex
	slots int
	busy  int
	// ring holds the chats with waiting calls in serving order from next:
	// ring[next] is served first, a chat that starts waiting joins at the
	// end of the round (just before next).
	ring []*chatWaiters
	next int
	byID map[string]*chatWaiters
	// pending holds the places to tell, in the order they were worked
	// out under mu; one caller at a time (delivering) tells them, outside
	// mu. Telling each caller's own notes after unlocking let two
	// releases overtake each other, and a served chat was told "next in
	// line" after "served".
	pending    notes
	delivering bool
	// waits counts the calls that have waited for a slot, by how long
	// (QueueStats): kept under mu at the moment a wait ends, read only
	// when asked.
	waits waitCounts
}

type chatWaiters struct {
	id      string
	waiting []*waiter
	// watch is told the chat's place: how many other chats are served
	// before its next call; told is the last place it was told.
	watch func(ahead int)
	told  int
}

type waiter struct {
	ready   chan struct{}
	granted bool
	since   time.Time
}

func newQueue(slots int) *queue {
	return &queue{slots: slots, byID: map[string]*chatWaiters{}}
}

// chatKey carries a call's chat and its wait watcher in a context.
type chatKey struct{}

type chatInfo struct {
	id    string
	watch func(ahead int)
}

var anonChats atomic.Int64

// ForChat marks the controller calls made with ctx as chat's: the queue
// serves chats in turn, one call each per round. While any of the chat's
// calls waits for a free slot, onWait is told how many other chats will be
// served before it — again whenever that changes — and -1 once none of
// its calls waits any more (served, or their contexts ended). onWait may
// be nil. Calls without a chat count as a chat each.
func ForChat(ctx context.Context, chat string, onWait func(ahead int)) context.Context {
	return context.WithValue(ctx, chatKey{}, chatInfo{id: chat, watch: onWait})
}

func chatOf(ctx context.Context) chatInfo {
	ci, _ := ctx.Value(chatKey{}).(chatInfo)
	if ci.id == "" {
		ci.id = "\x00call-" + strconv.FormatInt(anonChats.Add(1), 10)
	}
	return ci
}

// acquire waits for a slot; release gives it back. It fails only with
// ctx's error, having left the queue.
func (q *queue) acquire(ctx context.Context) (release func(), err error) {
	if q == nil {
		return func() {}, nil
	}
	q.mu.Lock()
	if q.slots <= 0 || q.busy < q.slots && len(q.ring) == 0 {
		// Unbounded (max_concurrent 0) or a free slot: no wait, but the
		// call counts among those served and those on the server.
		q.busy++
		q.waits.add(0)
		q.mu.Unlock()
		return q.release, nil
	}
	ci := chatOf(ctx)
	w := &waiter{ready: make(chan struct{}), since: time.Now()}
	cw := q.byID[ci.id]
	if cw == nil {
		cw = &chatWaiters{id: ci.id, told: -1}
		q.byID[ci.id] = cw
		q.ring = slices.Insert(q.ring, q.next, cw)
		q.next = (q.next + 1) % len(q.ring)
	}
	if ci.watch != nil {
		cw.watch = ci.watch
	}
	cw.waiting = append(cw.waiting, w)
	q.post(q.positions(nil))
	q.mu.Unlock()
	q.deliver()

	select {
	case <-w.ready:
		return q.release, nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	if w.granted {
		// The slot came as the caller left: pass it on.
		q.mu.Unlock()
		q.release()
		return nil, ctx.Err()
	}
	q.waits.add(time.Since(w.since)) // given up: a wait all the same
	left := q.remove(cw, w)
	q.post(q.positions(left))
	q.mu.Unlock()
	q.deliver()
	return nil, ctx.Err()
}

// release frees a slot and grants the free slots to the waiting calls,
// round robin over the chats.
func (q *queue) release() {
	q.mu.Lock()
	q.busy--
	var left []*chatWaiters
	for q.busy < q.slots && len(q.ring) > 0 {
		q.next %= len(q.ring)
		cw := q.ring[q.next]
		w := cw.waiting[0]
		cw.waiting = cw.waiting[1:]
		w.granted = true
		close(w.ready)
		q.waits.add(time.Since(w.since))
		q.busy++
		if len(cw.waiting) == 0 {
			q.drop(q.next)
			left = append(left, cw)
		} else {
			q.next = (q.next + 1) % len(q.ring)
		}
	}
	q.post(q.positions(left))
	q.mu.Unlock()
	q.deliver()
}

// remove takes a waiter that gave up out of its chat's line, and returns
// the chat if it has no call waiting any more.
func (q *queue) remove(cw *chatWaiters, w *waiter) []*chatWaiters {
	cw.waiting = slices.DeleteFunc(cw.waiting, func(x *waiter) bool { return x == w })
	if len(cw.waiting) > 0 {
		return nil
	}
	if i := slices.Index(q.ring, cw); i >= 0 {
		q.drop(i)
	}
	return []*chatWaiters{cw}
}

// drop removes ring[i], keeping next on the chat it pointed at.
func (q *queue) drop(i int) {
	delete(q.byID, q.ring[i].id)
	q.ring = slices.Delete(q.ring, i, i+1)
	if i < q.next {
		q.next--
	}
	if len(q.ring) == 0 {
		q.next = 0
	} else {
		q.next %= len(q.ring)
	}
}

// note is a place to tell a watcher outside the lock.
type note struct {
	watch func(int)
	ahead int
}

type notes []note

// post queues places to tell; q.mu is held.
func (q *queue) post(ns notes) { q.pending = append(q.pending, ns...) }

// deliver tells the posted places in order, unless another caller is
// already doing so (it will tell these too before it stops).
func (q *queue) deliver() {
	q.mu.Lock()
	if q.delivering {
		q.mu.Unlock()
		return
	}
	q.delivering = true
	for len(q.pending) > 0 {
		batch := q.pending
		q.pending = nil
		q.mu.Unlock()
		batch.tell()
		q.mu.Lock()
	}
	q.delivering = false
	q.mu.Unlock()
}

func (ns notes) tell() {
	for _, n := range ns {
		n.watch(n.ahead)
	}
}

// positions returns the places that changed: each waiting chat's distance
// from the head of the round, and -1 for the chats in left, which no
// longer wait.
func (q *queue) positions(left []*chatWaiters) notes {
	var out notes
	for _, cw := range left {
		if cw.watch != nil && cw.told >= 0 {
			cw.told = -1
			out = append(out, note{cw.watch, -1})
		}
	}
	n := len(q.ring)
	for i := 0; i < n; i++ {
		cw := q.ring[(q.next+i)%n]
		if cw.watch != nil && cw.told != i {
			cw.told = i
			out = append(out, note{cw.watch, i})
		}
	}
	return out
}

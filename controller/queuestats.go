package controller

import (
	"slices"
	"time"
)

// QueueStats is what the controller's queue holds now and what its calls
// have waited so far: an operator's window on the shared controller
// (chorus serve --ssh's metrics). The queue counts as it works, under the
// lock it takes anyway; a reader pays for the copy, the queue nothing
// more.
type QueueStats struct {
	// Slots is controller.max_concurrent (0: unbounded); Busy the calls
	// on the server now; Waiting the calls waiting for a slot.
	Slots, Busy, Waiting int
	// Waits are the calls that have waited for a slot — those that got
	// one at once count with no wait, those whose turn was cancelled
	// while they waited with the wait they had — as a cumulative
	// histogram: Waits[i] calls waited at most WaitBounds()[i].
	Waits []uint64
	// WaitCount and WaitSum are all the calls counted and their waits
	// added up.
	WaitCount uint64
	WaitSum   time.Duration
}

// waitBounds are the upper bounds of the wait histogram: from a call
// served at once to one that waited behind a busy server for minutes.
var waitBounds = [...]time.Duration{
	time.Millisecond, 5 * time.Millisecond, 25 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond,
	500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
}

// WaitBounds returns the upper bounds of QueueStats.Waits, shortest first.
func WaitBounds() []time.Duration { return slices.Clone(waitBounds[:]) }

// waitCounts is the queue's running wait histogram; the queue's mu guards
// it.
type waitCounts struct {
	buckets [len(waitBounds)]uint64 // not cumulative: one bucket per wait
	count   uint64
	sum     time.Duration
}

func (w *waitCounts) add(d time.Duration) {
	w.count++
	w.sum += d
	for i, b := range waitBounds {
		if d <= b {
			w.buckets[i]++
			return
		}
	}
}

// QueueStats returns the queue's state and its waits so far. Every
// controller of one server (WithModel) shares the queue, and so these.
func (c *Controller) QueueStats() QueueStats {
	q := c.queue
	if q == nil {
		return QueueStats{}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	st := QueueStats{Slots: max(q.slots, 0), Busy: q.busy, WaitCount: q.waits.count, WaitSum: q.waits.sum, Waits: make([]uint64, len(waitBounds))}
	for _, cw := range q.ring {
		st.Waiting += len(cw.waiting)
	}
	var run uint64
	for i, n := range q.waits.buckets {
		run += n
		st.Waits[i] = run
	}
	return st
}

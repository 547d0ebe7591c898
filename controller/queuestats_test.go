package controller

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The queue's stats say what it holds — slots, calls on the server, calls
// waiting — and how long its calls waited: a call served at once with no
// wait, one that waited for a slot with its wait, one whose turn was
// cancelled while it waited with the wait it had.
func TestQueueStats(t *testing.T) {
	c := &Controller{queue: newQueue(1)}
	st := c.QueueStats()
	if st.Slots != 1 || st.Busy != 0 || st.Waiting != 0 || st.WaitCount != 0 || len(st.Waits) != len(WaitBounds()) {
		t.Fatalf("a new queue: %+v", st)
	}
	hold, err := c.queue.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := c.QueueStats(); st.Busy != 1 || st.WaitCount != 1 || st.Waits[0] != 1 || st.WaitSum != 0 {
		t.Fatalf("one call served at once: %+v", st)
	}

	granted := make(chan func())
	go func() {
		release, err := c.queue.acquire(ForChat(context.Background(), "b", nil))
		if err != nil {
			t.Error(err)
		}
		granted <- release
	}()
	waitQueued(t, c.queue, 1)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error)
	go func() {
		_, err := c.queue.acquire(ForChat(ctx, "c", nil))
		gaveUp <- err
	}()
	waitQueued(t, c.queue, 2)
	if st := c.QueueStats(); st.Busy != 1 || st.Waiting != 2 || st.WaitCount != 1 {
		t.Fatalf("two calls waiting: %+v", st)
	}
	time.Sleep(30 * time.Millisecond) // a wait long enough to leave the first buckets
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	hold()
	(<-granted)()
	st = c.QueueStats()
	if st.Busy != 0 || st.Waiting != 0 || st.WaitCount != 3 {
		t.Fatalf("after: %+v", st)
	}
	if st.WaitSum < 60*time.Millisecond {
		t.Fatalf("two calls waited 30 ms or more each, the sum is %s", st.WaitSum)
	}
	// Cumulative: the last bucket holds every call; the 25 ms one only
	// the call served at once.
	bounds := WaitBounds()
	for i, b := range bounds {
		if b == 25*time.Millisecond && st.Waits[i] != 1 {
			t.Fatalf("calls within 25 ms: %d, want 1 (%v)", st.Waits[i], st.Waits)
		}
		if i > 0 && st.Waits[i] < st.Waits[i-1] {
			t.Fatalf("not cumulative: %v", st.Waits)
		}
	}
	if st.Waits[len(st.Waits)-1] != 3 {
		t.Fatalf("the last bucket: %v", st.Waits)
	}

	// An unbounded queue (max_concurrent 0) waits for nothing but still
	// counts its calls on the server.
	u := &Controller{queue: newQueue(0)}
	r1, _ := u.queue.acquire(context.Background())
	r2, _ := u.queue.acquire(context.Background())
	if st := u.QueueStats(); st.Slots != 0 || st.Busy != 2 || st.WaitCount != 2 || st.Waiting != 0 {
		t.Fatalf("unbounded: %+v", st)
	}
	r1()
	r2()
	if st := u.QueueStats(); st.Busy != 0 {
		t.Fatalf("unbounded, released: %+v", st)
	}
}

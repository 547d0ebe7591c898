package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// slotOrder notes the order calls get their slot in, and each call's wait
// reports.
type slotOrder struct {
	mu     sync.Mutex
	order  []string
	report map[string][]int
}

func (r *slotOrder) watch(name string) func(int) {
	return func(ahead int) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.report[name] = append(r.report[name], ahead)
	}
}

// waitQueued blocks until n calls wait in q.
func waitQueued(t *testing.T, q *queue, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		q.mu.Lock()
		got := 0
		for _, cw := range q.ring {
			got += len(cw.waiting)
		}
		q.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls waiting, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// One chat's fan-out of four does not hold back another chat's plan call:
// the queue serves chats in turn, and each waiting call is told how many
// chats come first.
func TestQueueIsFairAcrossChats(t *testing.T) {
	q := newQueue(1)
	rec := &slotOrder{report: map[string][]int{}}
	hold, err := q.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	start := func(chat, name string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := ForChat(context.Background(), chat, rec.watch(chat))
			release, err := q.acquire(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			rec.mu.Lock()
			rec.order = append(rec.order, name)
			rec.mu.Unlock()
			<-gate
			release()
		}()
	}
	for i := range 4 {
		start("alice", fmt.Sprintf("alice-task-%d", i))
		waitQueued(t, q, i+1)
	}
	start("bob", "bob-plan")
	waitQueued(t, q, 5)
	start("carol", "carol-plan")
	waitQueued(t, q, 6)
	close(gate)
	hold()
	wg.Wait()
	want := []string{"alice-task-0", "bob-plan", "carol-plan", "alice-task-1", "alice-task-2", "alice-task-3"}
	if !slices.Equal(rec.order, want) {
		t.Fatalf("served %v, want %v", rec.order, want)
	}
	// Bob joined behind alice: one chat ahead, then none, then served;
	// carol behind both.
	for chat, want := range map[string][]int{"bob": {1, 0, -1}, "carol": {2, 1, 0, -1}, "alice": {0, 2, 1, 0, -1}} {
		if got := rec.report[chat]; !slices.Equal(got, want) {
			t.Errorf("%s's wait reports %v, want %v", chat, got, want)
		}
	}
}

// A caller that gives up leaves the queue at once, and the others move up.
func TestQueueCancelLeavesAtOnce(t *testing.T) {
	q := newQueue(1)
	hold, _ := q.acquire(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	var reports []int
	var mu sync.Mutex
	done := make(chan error)
	go func() {
		_, err := q.acquire(ForChat(ctx, "a", func(n int) { mu.Lock(); reports = append(reports, n); mu.Unlock() }))
		done <- err
	}()
	waitQueued(t, q, 1)
	later := make(chan struct{})
	go func() {
		release, err := q.acquire(ForChat(context.Background(), "b", nil))
		if err == nil {
			release()
		}
		close(later)
	}()
	waitQueued(t, q, 2)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait returned %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("a cancelled call stayed in the queue")
	}
	waitQueued(t, q, 1)
	hold()
	<-later
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(reports, []int{0, -1}) {
		t.Errorf("reports %v, want [0 -1]", reports)
	}
	if q.busy != 0 || len(q.ring) != 0 || len(q.byID) != 0 {
		t.Fatalf("queue not empty after all left: busy %d, ring %d", q.busy, len(q.ring))
	}
}

// Without a bound nothing waits.
func TestQueueUnbounded(t *testing.T) {
	q := newQueue(0)
	for range 100 {
		if _, err := q.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

package httpwire

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSleepStopsWithTheContext: a cancelled context ends the wait at once
// with its error, however long the wait; a wait of nothing returns the
// context's state without a timer.
func TestSleepStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Sleep(ctx, time.Hour) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep after cancel: %v, want context.Canceled", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep(0) on a cancelled context: %v", err)
	}
	if err := Sleep(context.Background(), time.Nanosecond); err != nil {
		t.Fatalf("a short wait: %v", err)
	}
}

package httpwire

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends, whichever comes first, and returns
// ctx's error when that came first. It is the one context-aware wait of
// Chorus — a retry after a rate limit or a busy model, a replay's recorded
// pace — so a cancelled turn stops every one of them the same way: at
// once, with no timer left behind.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

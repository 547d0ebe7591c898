package recording

import (
	"context"
	"time"

	"github.com/chorusai/chorus/httpwire"
)

// Pace is how fast a replay runs: every recorded wait — a reply's chunks,
// an expert's run time — is divided by Speed. 1 is as recorded, 2 twice as
// fast, 0.5 half as fast; 0 (or less) does not wait at all.
type Pace struct {
	Speed float64
	// Sleep waits; nil means a timer. Tests pass their own to see the
	// scaled waits without spending them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Scale returns d as this pace waits it.
func (p Pace) Scale(d time.Duration) time.Duration {
	if p.Speed <= 0 || d <= 0 {
		return 0
	}
	return time.Duration(float64(d) / p.Speed)
}

// Wait waits the recorded duration d at this pace, or until ctx ends.
func (p Pace) Wait(ctx context.Context, d time.Duration) error {
	d = p.Scale(d)
	if d <= 0 {
		return ctx.Err()
	}
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return httpwire.Sleep(ctx, d)
}

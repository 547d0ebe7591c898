package conversation

import (
	"context"
	"errors"
	"sync"
)

// ErrDraining is returned (in Result.Err) for a turn asked for while the
// server drains: it stops taking turns and lets those in flight finish
// before it restarts.
var ErrDraining = errors.New("the server is restarting — no new turns now; connect again in a moment, your session is saved")

// Drain lets a server restart without cutting a turn short: Begin stops
// new turns (Chat.Run refuses them with ErrDraining) and Wait returns once
// the turns in flight have ended and been saved. Services share one
// through Options.Drain — chorus serve --ssh opens a service per
// connection, and drains them all at once. The zero value is ready to
// use.
type Drain struct {
	mu       sync.Mutex
	draining bool
	running  int
	idle     chan struct{} // closed when draining and no turn runs
}

// Begin stops new turns; the ones in flight go on.
func (d *Drain) Begin() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining {
		return
	}
	d.draining = true
	d.idle = make(chan struct{})
	if d.running == 0 {
		close(d.idle)
	}
}

// Draining reports whether Begin was called.
func (d *Drain) Draining() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.draining
}

// Running returns how many turns are in flight.
func (d *Drain) Running() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.running
}

// Wait returns once Begin was called and no turn runs, or with ctx's error
// when ctx ends first (the drain's timeout, a second signal).
func (d *Drain) Wait(ctx context.Context) error {
	d.mu.Lock()
	idle := d.idle
	d.mu.Unlock()
	if idle == nil {
		return errors.New("conversation: Drain.Wait before Begin")
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enter counts a turn in, unless the drain has begun.
func (d *Drain) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining {
		return false
	}
	d.running++
	return true
}

// leave counts a turn out.
func (d *Drain) leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.running--
	if d.draining && d.running == 0 {
		close(d.idle)
	}
}

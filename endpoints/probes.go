package endpoints

import (
	"context"
	"sync"
	"time"
)

// Probes runs a server's health or model-list probe at most once per TTL
// for each key: the checks that arrive while one runs share it, and its
// answer is cached for TTL after. Selection checks every candidate of
// every task at once, so without it a plan of four tasks would ask the
// same server the same question dozens of times.
//
// The zero value is not usable; set TTL and Timeout before the first Do.
type Probes[K comparable, V any] struct {
	// TTL is how long an answer is reused.
	TTL time.Duration
	// Timeout bounds one probe.
	Timeout time.Duration

	mu   sync.Mutex
	runs map[K]*probeRun[V]
}

// probeRun is one probe: done closes when v and err are set.
type probeRun[V any] struct {
	done chan struct{}
	at   time.Time
	v    V
	err  error
}

// Do returns key's answer: the cached one while it is fresh, the running
// probe's, or a new run of probe. The probe outlives a caller that gives
// up, so the others waiting on it still get an answer; Timeout bounds it.
// When ctx ends first, Do returns cancelled(ctx.Err()).
func (p *Probes[K, V]) Do(ctx context.Context, key K, probe func(context.Context) (V, error), cancelled func(error) error) (V, error) {
	p.mu.Lock()
	if p.runs == nil {
		p.runs = map[K]*probeRun[V]{}
	}
	r := p.runs[key]
	if r != nil {
		select {
		case <-r.done:
			if time.Since(r.at) > p.TTL {
				r = nil
			}
		default: // in flight: share it
		}
	}
	if r == nil {
		r = &probeRun[V]{done: make(chan struct{})}
		p.runs[key] = r
		go func() {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.Timeout)
			defer cancel()
			v, err := probe(pctx)
			p.mu.Lock()
			r.v, r.err, r.at = v, err, time.Now()
			p.mu.Unlock()
			close(r.done)
		}()
	}
	p.mu.Unlock()
	select {
	case <-r.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return r.v, r.err
	case <-ctx.Done():
		var zero V
		return zero, cancelled(ctx.Err())
	}
}

// Forget drops key's answer, so the next Do probes again.
func (p *Probes[K, V]) Forget(key K) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.runs, key)
}

// ForgetAll drops every answer.
func (p *Probes[K, V]) ForgetAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.runs)
}

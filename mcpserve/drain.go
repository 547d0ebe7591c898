package mcpserve

import (
	"context"
)

// DrainText is what a call in flight is told when the server restarts
// (chorus mcp serve --http on SIGTERM), as a progress notification when
// its client asked for progress.
const DrainText = "the server is restarting — your call finishes first"

// call is a tool call in flight.
type call struct{ say func(msg string) }

// inFlight registers a call for the drain to tell; the func returned
// takes it off.
func (s *Server) inFlight(say func(string)) (done func()) {
	c := &call{say: say}
	s.mu.Lock()
	s.calls[c] = struct{}{}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.calls, c)
		s.mu.Unlock()
	}
}

// Drain readies a restart that cuts no call short: no new call starts
// (one is answered with a tool error saying the server restarts, and to
// call again in a moment), each call in flight is told DrainText, and
// Drain returns once those calls' turns have finished — or with ctx's
// error when ctx ends first (serve.drain_timeout, a second signal); Close
// then cancels what still runs.
func (s *Server) Drain(ctx context.Context) error {
	d := s.opts.Service.Drain()
	d.Begin()
	s.mu.Lock()
	calls := make([]*call, 0, len(s.calls))
	for c := range s.calls {
		calls = append(calls, c)
	}
	s.mu.Unlock()
	for _, c := range calls {
		c.say(DrainText)
	}
	s.opts.Logger.Info("mcp serve draining: no new calls; the calls in flight finish", "calls", len(calls), "turns", d.Running())
	return d.Wait(ctx)
}

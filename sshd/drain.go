package sshd

import (
	"context"
	"time"

	"github.com/chorusai/chorus/ui"
)

// A restart that lets turns finish. Drain, on the server's first SIGTERM
// (chorus serve), in order:
//
//  1. closes the listener: no new connection (one already logging in is
//     told to come back, RefusedDraining);
//  2. stops new turns on every chat (the conversation.Drain of the
//     service every key's service is At) and tells each chat "the server is restarting — your turn
//     finishes first";
//  3. waits for the turns in flight to finish and be saved, until its ctx
//     ends (serve.drain_timeout, or a second signal);
//  4. ends every chat: each is saved as it closes (a turn still running
//     then is cancelled and saved as such), and its user is told the
//     session is saved and to connect again.
//
// Serve returns once Drain has. The metrics listener (serve.metrics)
// answers /readyz 503 meanwhile.

// restartedText is what a chat's terminal shows once the chat has closed
// for a restart, in the user's own terminal after the chat's screen.
const restartedText = "chorus: the server is restarting — your session is saved; connect again in a moment and /load it to go on"

// Drain ends the server gently (see above) and returns once every chat
// has ended; ctx bounds the wait for the turns in flight.
func (s *Server) Drain(ctx context.Context) {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		return
	}
	s.draining = true
	ln := s.ln
	progs := s.chatPrograms()
	s.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	turns := s.opts.Service.Drain()
	turns.Begin()
	s.log.Info("ssh server draining: no new connections or turns; the turns in flight finish", "chats", len(progs), "turns", turns.Running())
	for _, p := range progs {
		p.Drain()
	}
	start := time.Now()
	err := turns.Wait(ctx)
	if err != nil {
		s.log.Warn("ssh server drain cut short: the turns still running are cancelled and saved as such", "turns", turns.Running(),
			"waited", time.Since(start).Round(time.Millisecond), "err", err.Error())
	} else {
		s.log.Info("ssh server drained: every turn finished", "waited", time.Since(start).Round(time.Millisecond))
	}
	s.mu.Lock()
	progs = s.chatPrograms()
	s.mu.Unlock()
	for _, p := range progs {
		if err != nil {
			go p.Quit() // Send blocks until the program runs, returns once it ended
		} else {
			p.Drained() // each chat ends once it has drawn its turn's end
		}
	}
	if !s.waitChats() {
		s.log.Warn("ssh server drained, but not every chat closed in time")
	}
	close(s.drained)
}

// isDraining reports whether Drain has begun.
func (s *Server) isDraining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

// chatPrograms lists the chats running; s.mu is held.
func (s *Server) chatPrograms() []*ui.Program {
	out := make([]*ui.Program, 0, len(s.progs))
	for p := range s.progs {
		out = append(out, p)
	}
	return out
}

// addChat registers a chat's program for the drain to tell and end; false
// when the server is draining already, and the chat must not start.
func (s *Server) addChat(p *ui.Program) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return false
	}
	s.progs[p] = struct{}{}
	return true
}

func (s *Server) removeChat(p *ui.Program) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.progs, p)
}

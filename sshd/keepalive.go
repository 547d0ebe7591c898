package sshd

import (
	"log/slog"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// A client that closes its connection is noticed at once: the read ends.
// One whose network went away (a dropped Wi-Fi, a laptop that slept) sends
// nothing more — no close either — and would hold its chat, a turn under
// way and its memory until the idle timeout. So the server asks every
// KeepAlive for a reply (keepalive@openssh.com, which every client
// answers, if only to refuse it); none within another KeepAlive means the
// connection is gone, and it is closed — the chat ends and is saved within
// seconds.

// DefaultKeepAlive is how often a chat's client is asked for a sign of life.
const DefaultKeepAlive = 5 * time.Second

// keepAlive is the middleware that watches the connection while its
// session is served.
func (s *Server) keepAlive(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		stop := make(chan struct{})
		defer close(stop)
		go keepAlive(sess, s.keepAliveEvery(), s.chatLog(sess), stop)
		next(sess)
	}
}

// keepAlive watches sess's connection until stop is closed.
func keepAlive(sess ssh.Session, every time.Duration, log *slog.Logger, stop <-chan struct{}) {
	conn, ok := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn)
	if !ok || every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := conn.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		select {
		case <-stop:
			return
		case err := <-answered:
			if err != nil {
				return // the connection is closing already
			}
		case <-time.After(every):
			log.Warn("ssh connection lost: no answer to a keepalive", "waited", every)
			conn.Close()
			return
		}
	}
}

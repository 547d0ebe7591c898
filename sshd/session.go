package sshd

import (
	"net"
	"strings"

	"github.com/charmbracelet/ssh"
)

// sessionEnv is the environment of the person at the other end: what
// their client sent (TERM from the PTY request; COLORTERM, NO_COLOR,
// TERM_PROGRAM, LC_* where the client sends them), never the server's —
// so images, colours and links are chosen for their terminal. It also
// says, as sshd does, that this is an ssh connection (SSH_CONNECTION).
func sessionEnv(sess ssh.Session, pty ssh.Pty) func(string) string {
	env := map[string]string{}
	for _, kv := range sess.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env["TERM"] = pty.Term
	rh, rp, _ := net.SplitHostPort(sess.RemoteAddr().String())
	lh, lp, _ := net.SplitHostPort(sess.LocalAddr().String())
	env["SSH_CONNECTION"] = strings.Join([]string{rh, rp, lh, lp}, " ")
	env["SSH_CLIENT"] = strings.Join([]string{rh, rp, lp}, " ")
	return func(k string) string { return env[k] }
}

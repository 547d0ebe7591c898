package sshd

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	"github.com/charmbracelet/ssh"

	"github.com/chorusai/chorus/ui"
)

// chat is the middleware that serves one connection: it turns away what
// is not a chat (a command, no terminal, no free slot), then runs the
// user's chat on the connection's terminal with wish's Bubble Tea
// middleware — which sizes the program from the PTY and sends it every
// window change — and saves the chat when it ends, however it ends.
func (s *Server) chat(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.chats.Add(1)
		defer s.chats.Done()
		remote := sess.RemoteAddr().String()
		fp := fingerprint(sess.PublicKey())
		log := s.log.With("fingerprint", fp, "remote", remote)
		if cmd := sess.RawCommand(); cmd != "" {
			log.Info("ssh command refused", "command", cmd)
			wish.Fatalln(sess, "chorus: this server runs the chat only, not commands — connect without one (ssh -t …)")
			return
		}
		pty, _, ok := sess.Pty()
		if !ok {
			log.Info("ssh session refused: no terminal")
			wish.Fatalln(sess, "chorus: the chat needs a terminal — connect with ssh -t")
			return
		}
		if !s.acquire() {
			log.Warn("ssh session refused: all sessions in use", "max_sessions", s.opts.MaxSessions)
			wish.Fatalln(sess, fmt.Sprintf("chorus: all %d chats this server allows are in use — try again later", s.opts.MaxSessions))
			return
		}
		defer s.release()

		dir := filepath.Join(s.opts.UsersDir, userDirName(sess.PublicKey()))
		for _, d := range []string{dir, filepath.Join(dir, "sessions"), filepath.Join(dir, "outputs")} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				log.Error("ssh session refused: no user directory", "err", err.Error())
				wish.Fatalln(sess, "chorus: cannot create your directory on the server: "+err.Error())
				return
			}
		}
		start := time.Now()
		log.Info("ssh chat started", "user", sess.User(), "term", pty.Term, "width", pty.Window.Width, "height", pty.Window.Height, "dir", dir)
		prog, err := ui.NewProgram(sess.Context(), ui.Options{
			Config:         s.opts.Config,
			Engine:         s.opts.Engine,
			Constraints:    s.opts.Constraints,
			SessionDir:     filepath.Join(dir, "sessions"),
			OutputDir:      filepath.Join(dir, "outputs"),
			Workspace:      dir,
			Remote:         remote,
			Getenv:         sessionEnv(sess, pty),
			Logger:         log,
			Version:        s.opts.Version,
			Warmer:         &s.warm,
			ProgramOptions: bm.MakeOptions(sess),
		})
		if err != nil {
			log.Error("ssh chat did not start", "err", err.Error())
			wish.Fatalln(sess, "chorus: "+err.Error())
			return
		}
		bm.MiddlewareWithProgramHandler(func(ssh.Session) *tea.Program { return prog.Program })(func(ssh.Session) {})(sess)
		if err := prog.Finish(); err != nil {
			log.Error("ssh chat not saved", "err", err.Error())
		}
		log.Info("ssh chat ended", "elapsed", time.Since(start).Round(time.Millisecond))
		next(sess)
	}
}

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

package sshd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	"github.com/charmbracelet/ssh"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui"
)

// A connection passes through a chain of middleware, each one concern in a
// function of its own (soft-serve's pkg/ssh is the model), outermost first:
//
//	recoverChat  a panic ends this chat with a message, never the server
//	logChat      the chat's start and end in the log file, with who and where
//	keepAlive    a connection gone silent is closed within seconds (keepalive.go)
//	refuse       what is not a chat: a command, no terminal
//	takeSlot     serve.max_sessions
//	userDir      the key's own directory
//	limitPaste   a paste over the chat's limit never reaches it (paste.go)
//	teaChat      the chat: a Bubble Tea program on the connection's terminal
//
// Before any of them, the front door (frontdoor.go) bounds what a
// connection costs until it has logged in.
//
// A new concern (a limit, a check) is a new function in the list.
func (s *Server) middleware() []wish.Middleware {
	return []wish.Middleware{s.recoverChat, s.logChat, s.keepAlive, s.refuse, s.takeSlot, s.userDir, s.limitPaste, s.teaChat}
}

// chain composes middleware so that a session passes through them in the
// order given, the first outermost (wish.WithMiddleware takes them the
// other way round).
func chain(mw ...wish.Middleware) wish.Middleware {
	return func(next ssh.Handler) ssh.Handler {
		h := next
		for i := len(mw) - 1; i >= 0; i-- {
			h = mw[i](h)
		}
		return h
	}
}

// Values the middleware hand down with the session's context.
type ctxKey int

const (
	logKey ctxKey = iota // *slog.Logger with the connection's key and address
	dirKey               // string: the key's own directory
)

// chatLog is the connection's logger, set by logChat.
func (s *Server) chatLog(sess ssh.Session) *slog.Logger {
	if l, ok := sess.Context().Value(logKey).(*slog.Logger); ok {
		return l
	}
	return s.log
}

// recoverChat ends a chat that panicked with a message to its user, and
// logs the panic with its stack; the server and the other chats go on.
func (s *Server) recoverChat(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer func() {
			if r := recover(); r != nil {
				s.chatLog(sess).Error("ssh chat panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				wish.Fatalln(sess, "\r\nchorus: this chat hit an internal error and was closed — the server goes on; connect again to continue (your session is saved up to its last turn)")
			}
		}()
		next(sess)
	}
}

// logChat records the chat's start and end in the log file, every record
// carrying the key's fingerprint and the remote address.
func (s *Server) logChat(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		log := s.log.With("fingerprint", fingerprint(sess.PublicKey()), "remote", sess.RemoteAddr().String())
		sess.Context().SetValue(logKey, log)
		start := time.Now()
		next(sess)
		log.Info("ssh connection ended", "elapsed", time.Since(start).Round(time.Millisecond))
	}
}

// refuse turns away what is not a chat: a command, a session without a
// terminal.
func (s *Server) refuse(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		log := s.chatLog(sess)
		if cmd := sess.RawCommand(); cmd != "" {
			log.Info("ssh command refused", "command", cmd)
			s.opts.Refused(RefusedNotAChat)
			wish.Fatalln(sess, "chorus: this server runs the chat only, not commands — connect without one (ssh -t …)")
			return
		}
		if _, _, ok := sess.Pty(); !ok {
			log.Info("ssh session refused: no terminal")
			s.opts.Refused(RefusedNotAChat)
			wish.Fatalln(sess, "chorus: the chat needs a terminal — connect with ssh -t")
			return
		}
		next(sess)
	}
}

// takeSlot holds one of serve.max_sessions chat slots for the chat.
func (s *Server) takeSlot(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if !s.acquire() {
			s.chatLog(sess).Warn("ssh session refused: all sessions in use", "max_sessions", s.opts.MaxSessions)
			s.opts.Refused(RefusedSessionsCap)
			wish.Fatalln(sess, fmt.Sprintf("chorus: all %d chats this server allows are in use — try again later", s.opts.MaxSessions))
			return
		}
		defer s.release()
		next(sess)
	}
}

// userDir makes sure the key's own directory (sessions, outputs) exists.
func (s *Server) userDir(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		dir := filepath.Join(s.opts.UsersDir, userDirName(sess.PublicKey()))
		for _, d := range []string{dir, filepath.Join(dir, "sessions"), filepath.Join(dir, "outputs")} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				s.chatLog(sess).Error("ssh session refused: no user directory", "err", err.Error())
				wish.Fatalln(sess, "chorus: cannot create your directory on the server: "+err.Error())
				return
			}
		}
		sess.Context().SetValue(dirKey, dir)
		next(sess)
	}
}

// operatorApproves is the approval of an ssh user's turns: a tool that may
// change things runs on this machine, so the operator decides, in the
// configuration (serve.allow_tools, patterns as --allow-tool's), and the
// remote user is never asked — their "y" would run a tool on the host.
func operatorApproves(allowed []string) func(context.Context, pipeline.Approval) error {
	return pipeline.AllowListed(allowed, func(tool string) string {
		return "this server's operator has not allowed it for ssh users (they may add " + tool + " to serve.allow_tools)"
	})
}

// teaChat runs the user's chat on the connection's terminal: a program of
// the chat service over the shared engine, the key's sessions and
// outputs, sized from the PTY and sent every window change, and saved when
// it ends, however it ends (a panic included).
func (s *Server) teaChat(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.chats.Add(1)
		defer s.chats.Done()
		if s.isDraining() {
			s.refuseDraining(sess)
			return
		}
		log := s.chatLog(sess)
		dir, _ := sess.Context().Value(dirKey).(string)
		pty, windows, _ := sess.Pty()
		start := time.Now()
		log.Info("ssh chat started", "user", sess.User(), "term", pty.Term, "width", pty.Window.Width, "height", pty.Window.Height, "dir", dir)
		// The chats share the engine, and so the prompt head the server
		// warmed once when it started (Serve): a chat's turn cancels that
		// warm-up if it is still running; a chat's /model warms it again
		// for that model.
		svc := s.opts.Service.At(filepath.Join(dir, "sessions"), log)
		capped := false
		width, height := capWindow(log, &capped, pty.Window.Width, pty.Window.Height)
		// The client's size, capped, replaces the one MakeOptions took from
		// the PTY request as it came. The server's signals are not the
		// chat's: a program catching SIGTERM quit every chat at once, turns
		// cut off, when the server was told to drain.
		opts := append(append(bm.MakeOptions(sess), s.chatInput(sess)...), tea.WithWindowSize(width, height), tea.WithoutSignalHandler())
		prog, err := s.opts.NewProgram(sess.Context(), ui.Options{
			Config:         s.opts.Config,
			Service:        svc,
			Constraints:    s.opts.Constraints,
			OutputDir:      filepath.Join(dir, "outputs"),
			SpillQuota:     s.opts.Config.Serve.SpillQuota.Limit().Bytes,
			Workspace:      dir,
			Approve:        operatorApproves(s.opts.Config.Serve.AllowTools),
			Remote:         sess.RemoteAddr().String(),
			NoPull:         !s.opts.AllowPull,
			MaxPaste:       ui.DefaultMaxPaste,
			Getenv:         sessionEnv(sess, pty),
			Warm:           s.opts.Config.WarmController(), // after /model; the server warmed the head once when it started
			ProgramOptions: opts,
		})
		if err == nil {
			s.pasteRefusalsTo(sess, prog)
		}
		if err != nil {
			log.Error("ssh chat did not start", "err", err.Error())
			wish.Fatalln(sess, "chorus: "+err.Error())
			return
		}
		if !s.addChat(prog) {
			// The drain began while the chat was being made.
			_ = prog.Finish()
			s.refuseDraining(sess)
			return
		}
		defer func() {
			s.removeChat(prog)
			if err := prog.Finish(); err != nil {
				log.Error("ssh chat not saved", "err", err.Error())
			}
			if s.isDraining() {
				// After the chat's screen, in the user's own terminal.
				_, _ = fmt.Fprint(sess, "\r\n"+restartedText+"\r\n")
			}
			log.Info("ssh chat ended", "elapsed", time.Since(start).Round(time.Millisecond))
		}()
		ctx, cancel := context.WithCancel(sess.Context())
		defer cancel()
		go func() {
			for {
				select {
				case <-ctx.Done():
					prog.Quit()
					return
				case w := <-windows:
					width, height := capWindow(log, &capped, w.Width, w.Height)
					prog.Send(tea.WindowSizeMsg{Width: width, Height: height})
				}
			}
		}()
		if _, err := prog.Run(); err != nil && ctx.Err() == nil {
			log.Warn("ssh chat ended with an error", "err", err.Error())
		}
		// Kill restores the terminal if the program did not end cleanly.
		prog.Kill()
		next(sess)
	}
}

// refuseDraining turns away a chat that would start during a drain.
func (s *Server) refuseDraining(sess ssh.Session) {
	s.chatLog(sess).Info("ssh session refused: the server is restarting")
	s.opts.Refused(RefusedDraining)
	wish.Fatalln(sess, "chorus: the server is restarting — connect again in a moment")
}

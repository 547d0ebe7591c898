package sshd

import (
	"bytes"
	"io"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/ssh"

	"github.com/chorusai/chorus/ui"
)

// A terminal sends a paste as one bracketed sequence, ESC[200~ … ESC[201~,
// which the program's input reader collects whole before the chat sees
// it: a 10 MB paste over ssh would sit in the server's memory several
// times over (the reader's buffer, the message, the prompt) and keep the
// chat busy long after the client left. pasteLimiter stands between the
// connection and the program: a paste up to max bytes passes unchanged;
// a longer one is counted and dropped as it arrives — the limiter never
// holds more than max — and refused reports its size once it has ended,
// for the chat to say so.

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// pasteKey hands the session's pasteGuard from limitPaste to teaChat.
const pasteKey ctxKey = 100

// pasteGuard is a session's limiter and the chat it tells of refusals.
type pasteGuard struct {
	in   *pasteLimiter
	mu   sync.Mutex
	prog *ui.Program
}

// limitPaste is the middleware that puts the paste limiter between the
// connection and the chat (teaChat reads it with chatInput).
func (s *Server) limitPaste(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		g := &pasteGuard{}
		log := s.chatLog(sess)
		g.in = newPasteLimiter(sess, ui.DefaultMaxPaste, func(size int64) {
			log.Info("ssh paste refused", "bytes", size, "limit", ui.DefaultMaxPaste)
			g.mu.Lock()
			prog := g.prog
			g.mu.Unlock()
			if prog != nil {
				prog.Send(ui.PasteTooLarge{Size: size, Limit: ui.DefaultMaxPaste})
			}
		})
		sess.Context().SetValue(pasteKey, g)
		next(sess)
	}
}

// chatInput is the program option that makes the chat read the
// connection through its paste limiter, when limitPaste set one.
func (s *Server) chatInput(sess ssh.Session) []tea.ProgramOption {
	if g, ok := sess.Context().Value(pasteKey).(*pasteGuard); ok {
		return []tea.ProgramOption{tea.WithInput(g.in)}
	}
	return nil
}

// pasteRefusalsTo tells prog of the pastes the limiter refuses.
func (s *Server) pasteRefusalsTo(sess ssh.Session, prog *ui.Program) {
	if g, ok := sess.Context().Value(pasteKey).(*pasteGuard); ok {
		g.mu.Lock()
		g.prog = prog
		g.mu.Unlock()
	}
}

// pasteLimiter is the chat's input: r's bytes, bracketed pastes bounded.
type pasteLimiter struct {
	r       io.Reader
	max     int
	refused func(size int64)

	buf     []byte // read from r, not yet looked at
	out     []byte // ready for the program
	inPaste bool
	paste   []byte // the paste so far, while it fits
	size    int64  // the paste's length so far
	over    bool   // the paste passed max: dropped
	rerr    error
}

func newPasteLimiter(r io.Reader, max int, refused func(int64)) *pasteLimiter {
	return &pasteLimiter{r: r, max: max, refused: refused}
}

func (l *pasteLimiter) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if l.rerr != nil {
			return 0, l.rerr
		}
		var chunk [32 << 10]byte
		n, err := l.r.Read(chunk[:])
		l.buf = append(l.buf, chunk[:n]...)
		l.scan(err != nil)
		if err != nil {
			l.rerr = err
		}
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	if len(l.out) == 0 {
		l.out = nil // let a large batch go
	}
	return n, nil
}

// scan moves what it can from buf to out (or drops it). A marker split
// across reads waits in buf for its end, unless the input ended.
func (l *pasteLimiter) scan(eof bool) {
	defer func() {
		if eof && l.inPaste && !l.over {
			// The input ended inside a paste: what came passes.
			l.out = append(append(l.out, pasteStart...), l.paste...)
			l.inPaste, l.paste = false, nil
		}
	}()
	for len(l.buf) > 0 {
		if !l.inPaste {
			i := bytes.Index(l.buf, pasteStart)
			if i < 0 {
				keep := partialSuffix(l.buf, pasteStart)
				if eof {
					keep = 0
				}
				l.out = append(l.out, l.buf[:len(l.buf)-keep]...)
				l.buf = append(l.buf[:0], l.buf[len(l.buf)-keep:]...)
				return
			}
			l.out = append(l.out, l.buf[:i]...)
			l.buf = l.buf[i+len(pasteStart):]
			l.inPaste, l.paste, l.size, l.over = true, nil, 0, false
			continue
		}
		i := bytes.Index(l.buf, pasteEnd)
		take := i
		if i < 0 {
			take = len(l.buf) - partialSuffix(l.buf, pasteEnd)
			if eof {
				take = len(l.buf)
			}
		}
		l.add(l.buf[:take])
		if i < 0 {
			l.buf = append(l.buf[:0], l.buf[take:]...)
			break
		}
		l.buf = l.buf[i+len(pasteEnd):]
		l.inPaste = false
		if l.over {
			l.refused(l.size)
		} else {
			l.out = append(l.out, pasteStart...)
			l.out = append(l.out, l.paste...)
			l.out = append(l.out, pasteEnd...)
		}
		l.paste = nil
	}
}

// add counts p into the paste, keeping it while it fits.
func (l *pasteLimiter) add(p []byte) {
	l.size += int64(len(p))
	if l.over {
		return
	}
	if l.size > int64(l.max) {
		l.over, l.paste = true, nil
		return
	}
	l.paste = append(l.paste, p...)
}

// partialSuffix is the length of the longest end of b that begins marker.
func partialSuffix(b, marker []byte) int {
	for k := min(len(marker)-1, len(b)); k > 0; k-- {
		if bytes.HasSuffix(b, marker[:k]) {
			return k
		}
	}
	return 0
}

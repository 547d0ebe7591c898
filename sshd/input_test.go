package sshd_test

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/sshd"
)

// TestSSHPasteTooLarge (issue 17, 5): a 10 MB bracketed paste is refused
// with a note that says how to send it instead, costs the server little
// memory, and leaves the chat working.
func TestSSHPasteTooLarge(t *testing.T) {
	s := startServer(t, 2)
	_, tm := s.open(t, testKey(t, 1), 100, 30)
	mark := tm.waitFor(t, 0, "Ask anything")
	paste := append(append([]byte("\x1b[200~"), bytes.Repeat([]byte("pasted words "), 10<<20/13+1)[:10<<20]...), "\x1b[201~"...)
	peak, _ := testkit.PeakHeap(func() {
		if _, err := tm.stdin.Write(paste); err != nil {
			t.Fatal(err)
		}
		mark = tm.waitFor(t, mark, "paste is too large (10.0 MB, limit 1 MB) — attach it as a file")
	})
	t.Logf("peak heap during the 10 MB paste: %d MB (the test's own client holds the 10 MB it sends)", peak>>20)
	if peak > 64<<20 {
		t.Errorf("the paste cost %d MB of heap, want it bounded (the chat takes 1 MB)", peak>>20)
	}
	waitLog(t, s, "ssh paste refused")
	tm.typeText(t, "hello zebra\r")
	tm.waitFor(t, mark, "Served over ssh: zebras.")
}

// blackhole is a TCP proxy that can stop relaying while keeping both
// connections open: a network that went away without a word.
type blackhole struct {
	addr string
	mu   sync.Mutex
	cut  bool
}

func newBlackhole(t *testing.T, to string) *blackhole {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackhole{addr: l.Addr().String()}
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				return
			}
			conns = append(conns, c, up)
			go b.relay(up, c)
			go b.relay(c, up)
		}
	}()
	return b
}

func (b *blackhole) relay(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		b.mu.Lock()
		cut := b.cut
		b.mu.Unlock()
		if !cut && n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestSSHLostConnectionNoticed (issue 17, 5): a client whose network goes
// silent — no close, no data — has its chat ended and saved within
// seconds, not at the idle timeout.
func TestSSHLostConnectionNoticed(t *testing.T) {
	s := startServer(t, 2, func(o *sshd.Options) {
		o.IdleTimeout = 30 * time.Minute
		o.KeepAlive = 500 * time.Millisecond
	})
	b := newBlackhole(t, s.addr)
	c, err := gossh.Dial("tcp", b.addr, &gossh.ClientConfig{User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(testKey(t, 1))},
		HostKeyCallback: gossh.FixedHostKey(s.hostKey), Timeout: guard})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out := &testkit.Buffer{}
	sess.Stdout = out
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the chat's first frame", func() bool { return strings.Contains(out.String(), "Ask anything") })
	b.mu.Lock()
	b.cut = true
	b.mu.Unlock()
	start := time.Now()
	waitLog(t, s, "ssh chat ended")
	took := time.Since(start)
	t.Logf("the lost connection's chat ended %s after the network went silent", took.Round(10*time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("the chat ended %s after the network went silent, want within seconds", took)
	}
	if !strings.Contains(s.log.String(), "no answer to a keepalive") {
		t.Errorf("the log does not say why the connection was closed:\n%s", s.log.String())
	}
}

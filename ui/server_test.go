package ui

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/controller"
)

// flakyLink is a TCP proxy in front of the fake Ollama that can be cut and
// restored on the same address: an Ollama that is stopped and started
// again, as far as the client can tell.
type flakyLink struct {
	t      *testing.T
	addr   string
	target string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
}

func newFlakyLink(t *testing.T, target string) *flakyLink {
	l := &flakyLink{t: t, target: strings.TrimPrefix(target, "http://")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.addr = ln.Addr().String()
	l.serve(ln)
	t.Cleanup(l.down)
	return l
}

func (l *flakyLink) url() string { return "http://" + l.addr }

func (l *flakyLink) serve(ln net.Listener) {
	l.mu.Lock()
	l.ln = ln
	l.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.mu.Lock()
			l.conns = append(l.conns, c)
			l.mu.Unlock()
			go func() {
				defer c.Close()
				d, err := net.Dial("tcp", l.target)
				if err != nil {
					return
				}
				defer d.Close()
				go func() { _, _ = io.Copy(d, c); d.Close() }()
				_, _ = io.Copy(c, d)
			}()
		}
	}()
}

// down refuses new connections and cuts the open ones.
func (l *flakyLink) down() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln != nil {
		l.ln.Close()
		l.ln = nil
	}
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}

// up listens again on the same address.
func (l *flakyLink) up() {
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		l.t.Fatalf("cannot listen on %s again: %v", l.addr, err)
	}
	l.serve(ln)
}

// TestOllamaGoingAwayIsNoticedAndItsReturnAnnounced: Ollama was up at
// start, then went away. The turn that finds out fails with the
// controller's error; the status bar must then stop claiming "ollama ✓",
// the background checks must resume, and Ollama's return must be said
// once, so the user knows when to try again.
func TestOllamaGoingAwayIsNoticedAndItsReturnAnnounced(t *testing.T) {
	var link *flakyLink
	env := newTestEnvVia(t, func(target string) string {
		link = newFlakyLink(t, target)
		return link.url()
	})
	m := env.model(t)
	m.serverRetry = 20 * time.Millisecond
	s := startSession(t, m, 100, 30)
	s.wait("Ollama up", func(m *Model) bool { return m.server.checked && m.server.reachable })

	link.down()
	s.submit("hello?")
	s.wait("the failed turn", turnsDone(1))
	s.wait("the status bar to say Ollama is gone", func(m *Model) bool { return m.server.checked && !m.server.reachable })
	if f := s.snapshot(); !strings.Contains(f, "ollama ✗ unreachable") {
		t.Errorf("the status bar should say Ollama is unreachable:\n%s", f)
	}

	link.up()
	s.wait("Ollama's return", func(m *Model) bool { return m.server.reachable })
	m = s.finish()
	text := chatText(m)
	if n := strings.Count(text, "reachable now"); n != 1 {
		t.Errorf("Ollama's return should be said once, said %d times:\n%s", n, text)
	}
	// The failed turn already said Ollama is unreachable; the check after
	// it must not add the long start-up notice as well.
	if n := strings.Count(text, "Chorus keeps checking in the background"); n != 0 {
		t.Errorf("the failed turn's error was repeated by the check:\n%s", text)
	}
	if st := ansi.Strip(m.statusLine(fixedNow)); !strings.Contains(st, "ollama ✓") {
		t.Errorf("status bar after the return = %q", st)
	}
}

// plainBackend is a controller server of another kind: models and chat,
// no pull, no version, no words of its own.
type plainBackend struct{}

func (plainBackend) Models(context.Context) ([]controller.ModelInfo, error) {
	return []controller.ModelInfo{{Name: "qwen3:8b"}}, nil
}

func (plainBackend) Capabilities(context.Context, string) ([]string, error) {
	return []string{"completion"}, nil
}

func (plainBackend) Chat(_ context.Context, _ controller.ChatRequest, fn func(controller.ChatChunk)) error {
	fn(controller.ChatChunk{Content: "hi", Done: true, DoneReason: "stop"})
	return nil
}

// TestAnotherServerKindIsNotCalledOllama: with a backend that is not
// Ollama, the status bar and /pull speak of the controller server and
// offer no Ollama command.
func TestAnotherServerKindIsNotCalledOllama(t *testing.T) {
	env := newTestEnv(t)
	env.eng = env.eng.WithController(controller.NewWith(plainBackend{}, "http://10.1.2.3:8000", "qwen3:8b", controller.Options{}))
	m := env.model(t)
	msg := m.checkServer()()
	m.onServer(msg.(serverMsg))
	if bar := ansi.Strip(m.statusLine(fixedNow)); !strings.Contains(bar, "server ✓") || strings.Contains(bar, "ollama") {
		t.Errorf("status bar: %q", bar)
	}
	if cmd := m.startPull("llama3.2:3b"); cmd != nil || m.pull != nil {
		t.Fatal("a pull started on a server that cannot pull")
	}
	got := m.chat.Last().Text
	if !strings.Contains(got, "cannot download models") || strings.Contains(strings.ToLower(got), "ollama") {
		t.Errorf("/pull on a server that cannot: %q", got)
	}
}

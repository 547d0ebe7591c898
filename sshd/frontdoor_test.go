package sshd_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/sshd"
)

// idleFrom opens a TCP connection to addr from the loopback address ip
// and sends nothing: a client that never begins its handshake.
func idleFrom(t *testing.T, addr, ip string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: guard}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", ip, err)
	}
	return c
}

// closedByServer reports whether the server closed c (within wait): a
// read that ends in EOF or a reset, not in our deadline.
func closedByServer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 512)
	for {
		_, err := c.Read(buf)
		if err == nil {
			continue // the banner
		}
		if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
			return false
		}
		return true
	}
}

// sshGoroutines counts the goroutines of the SSH server and its chats —
// those with a frame in the SSH libraries, wish, Bubble Tea or this
// package — leaving out the HTTP connections the engine keeps to Ollama
// between turns, and returns their stacks.
func sshGoroutines() (int, string) {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	var out strings.Builder
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "frontdoor_test.go") || strings.Contains(g, "sshd.(*Server).Serve(") {
			continue // the test itself, and the server's own loop
		}
		for _, frame := range []string{"golang.org/x/crypto/ssh", "charmbracelet/ssh", "charm.land/wish", "charm.land/bubbletea", "chorus/sshd.", "chorus/ui."} {
			if strings.Contains(g, frame) {
				n++
				out.WriteString(g + "\n\n")
				break
			}
		}
	}
	return n, out.String()
}

// waitUntil polls cond until it holds or guard passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, guard)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSSHFrontDoor (issue 17, 3): 500 connections that never speak, from
// 50 loopback addresses, are held while a real client logs in and chats;
// an address over its cap is closed at once; the handshake deadline
// closes the idle ones long before the idle timeout; and the server's
// goroutines come back to their baseline.
func TestSSHFrontDoor(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("opens 500 connections")
	}
	// The handshake deadline must outlast opening the 500 connections and
	// the real client's login, however loaded the machine: with 3 s the
	// idle ones could time out before all were counted waiting.
	const idle, sources, handshake = 500, 50, 10 * time.Second
	refused := &refusals{n: map[string]int{}}
	s := startServer(t, 2, func(o *sshd.Options) {
		o.Refused = refused.add
		o.IdleTimeout = 30 * time.Minute
		o.HandshakeTimeout = handshake
		o.MaxUnauthenticatedPerSource = idle / sources
	})
	key := testKey(t, 1)
	// A first chat, so what every chat leaves for the next (the HTTP
	// connections to Ollama) is part of the baseline.
	c0, tm0 := s.open(t, key, 80, 24)
	tm0.waitFor(t, 0, "Ask anything")
	c0.Close()
	waitLog(t, s, "ssh chat ended")
	baseline, _ := sshGoroutines()

	var conns []net.Conn
	for i := range idle {
		conns = append(conns, idleFrom(t, s.addr, fmt.Sprintf("127.0.0.%d", 2+i%sources)))
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	waitUntil(t, fmt.Sprintf("%d idle connections waiting", idle), func() bool { return s.srv.Waiting() == idle })
	held, _ := sshGoroutines()

	// One more from an address at its cap is closed at once.
	over := idleFrom(t, s.addr, "127.0.0.2")
	defer over.Close()
	if !closedByServer(over, 2*time.Second) {
		t.Fatal("a connection over its address's cap was kept")
	}
	if got := refused.count(sshd.RefusedSourceCap); got != 1 {
		t.Errorf("refusals for the address's cap: %d, want 1", got)
	}

	// A real client logs in and chats meanwhile.
	start := time.Now()
	c1, tm := s.open(t, key, 80, 24)
	tm.waitFor(t, 0, "Ask anything")
	t.Logf("a real client logged in and got its chat in %s while %d idle connections were held", time.Since(start).Round(time.Millisecond), s.srv.Waiting())
	if n := s.srv.Waiting(); n != idle {
		t.Errorf("%d connections waiting while the client logged in, want the %d idle ones", n, idle)
	}
	c1.Close()

	// The handshake deadline closes the idle ones, not the idle timeout.
	if !closedByServer(conns[0], handshake+guard) {
		t.Fatal("an idle connection outlived the handshake deadline")
	}
	waitUntil(t, "the idle connections closed", func() bool { return s.srv.Waiting() == 0 })
	waitUntil(t, "each counted as a handshake timeout", func() bool { return refused.count(sshd.RefusedHandshakeTimeout) == idle })
	for _, c := range conns {
		c.Close()
	}
	waitLog(t, s, "ssh chat ended")
	var now int
	deadline := time.Now().Add(guard)
	for {
		var dump string
		if now, dump = sshGoroutines(); now <= baseline {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's goroutines: %d before the idle connections, still %d after %s:\n%s", baseline, now, guard, dump)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the server's goroutines: %d before the idle connections, %d while they were held, %d after", baseline, held, now)
}

// TestSSHFrontDoorFull: with every waiting place taken, a new connection
// makes the one that waited longest give way — a real client still gets
// in — and a file limit sizes the door.
func TestSSHFrontDoorFull(t *testing.T) {
	t.Parallel()
	refused := &refusals{n: map[string]int{}}
	s := startServer(t, 2, func(o *sshd.Options) {
		o.Refused = refused.add
		o.FileLimit = 64 + 2*16 + 20 // room for the chats and the server, and 20 waiting
		o.MaxUnauthenticatedPerSource = 100
		// No idle connection may time out during the test: on a loaded
		// machine the default deadline fired before the real client came,
		// which then found room and made none give way.
		o.HandshakeTimeout = 10 * time.Minute
	})
	var conns []net.Conn
	// One at a time until the door is full, each counted before the next:
	// the server accepts concurrently, so only this makes conns[0] the one
	// that waited longest.
	for i := range 30 {
		conns = append(conns, idleFrom(t, s.addr, fmt.Sprintf("127.0.0.%d", 2+i%3)))
		if i < 20 {
			waitUntil(t, fmt.Sprintf("%d waiting", i+1), func() bool { return s.srv.Waiting() == i+1 })
		}
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	waitUntil(t, "20 waiting", func() bool { return s.srv.Waiting() == 20 })
	if !closedByServer(conns[0], guard) {
		t.Fatal("the connection that waited longest was not closed for the newer ones")
	}
	_, tm := s.open(t, testKey(t, 1), 80, 24)
	tm.waitFor(t, 0, "Ask anything")
	// The eleven that gave way (to the ten more, then to the real client)
	// count as refused for the full door, once each.
	waitUntil(t, "eleven refusals for the full door", func() bool { return refused.count(sshd.RefusedWaitingCap) == 11 })
	_ = io.Discard
}

// refusals counts what the server told Options.Refused.
type refusals struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *refusals) add(reason string) {
	r.mu.Lock()
	r.n[reason]++
	r.mu.Unlock()
}

func (r *refusals) count(reason string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[reason]
}

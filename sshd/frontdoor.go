package sshd

import (
	"container/list"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The front door bounds what a connection costs before it has logged in.
// Without it a client that connects and never speaks holds a file
// descriptor and two goroutines for the whole idle timeout, and a few
// hundred of them exhaust the process's files so that a real user's
// handshake fails. So, before a connection has proved it holds an
// authorized key:
//
//   - it has HandshakeTimeout to do so (the deadline holds whatever the
//     idle timeout says), then it is closed;
//   - one source address holds at most MaxUnauthenticatedPerSource such
//     connections: one more is closed at once, before any goroutine of the
//     SSH server is spent on it;
//   - all sources together hold at most MaxUnauthenticated: one more makes
//     the oldest waiting connection give way, so a flood can delay a real
//     user by a handshake at most, never lock them out, and memory and
//     files stay bounded;
//   - MaxUnauthenticated never exceeds what the process's file limit
//     (RLIMIT_NOFILE, raised to its hard limit at start) leaves after the
//     chats' own files.
//
// It works on the connection (ssh.Server.ConnCallback) and on the key's
// proof (gossh.ServerConfig.VerifiedPublicKeyCallback): a middleware of
// sessions comes too late for either.

// Front-door defaults.
const (
	DefaultHandshakeTimeout            = 15 * time.Second
	DefaultMaxUnauthenticated          = 1024
	DefaultMaxUnauthenticatedPerSource = 10
)

// filesPerChat is a chat's share of the file limit: its connection, the
// session file, the log, a result being written, the HTTP connections of
// its turn.
const filesPerChat = 16

// filesReserved are the server's own files: the listener, the log, the
// engine's idle HTTP connections, standard streams.
const filesReserved = 64

// frontDoor holds the connections that have not yet logged in.
type frontDoor struct {
	handshake time.Duration
	maxTotal  int
	maxSource int
	log       func(msg string, args ...any)
	// refused is told of each connection turned away before a login, by
	// reason (refusals.go); nil tells no one.
	refused func(reason string)
	// stopped: the server is closing every connection — those closed now
	// were not refused.
	stopped atomic.Bool

	mu       sync.Mutex
	waiting  *list.List // *guardConn, oldest first
	bySource map[string]int
}

// newFrontDoor sizes the front door; fileLimit is the process's file
// limit (0: unknown) and maxChats the chats served at once.
func newFrontDoor(handshake time.Duration, maxTotal, maxSource, fileLimit, maxChats int, log func(string, ...any)) *frontDoor {
	if handshake <= 0 {
		handshake = DefaultHandshakeTimeout
	}
	if maxTotal <= 0 {
		maxTotal = DefaultMaxUnauthenticated
	}
	if maxSource <= 0 {
		maxSource = DefaultMaxUnauthenticatedPerSource
	}
	if fileLimit > 0 {
		// What the chats and the server need comes first; the waiting
		// connections get the rest, and always a few.
		maxTotal = max(min(maxTotal, fileLimit-filesReserved-filesPerChat*maxChats), 4)
	}
	maxSource = min(maxSource, maxTotal)
	return &frontDoor{handshake: handshake, maxTotal: maxTotal, maxSource: maxSource, log: log,
		waiting: list.New(), bySource: map[string]int{}}
}

// admit is the server's ConnCallback: it takes the connection in, wrapped
// so its handshake deadline holds, or closes it (nil) when its source
// holds all it may. A full door makes the oldest waiting connection give
// way.
func (d *frontDoor) admit(ctx ssh.Context, conn net.Conn) net.Conn {
	src := sourceOf(conn.RemoteAddr())
	d.mu.Lock()
	if d.bySource[src] >= d.maxSource {
		d.mu.Unlock()
		d.refuse(RefusedSourceCap)
		d.log("ssh connection refused: too many connections from one address waiting to log in", "remote", conn.RemoteAddr().String(), "max_per_source", d.maxSource)
		return nil // the server closes it; no goroutine of it is left
	}
	var evicted *guardConn
	if d.waiting.Len() >= d.maxTotal {
		evicted = d.waiting.Front().Value.(*guardConn)
		d.removeLocked(evicted)
	}
	g := &guardConn{Conn: conn, door: d, source: src, deadline: time.Now().Add(d.handshake)}
	g.elem = d.waiting.PushBack(g)
	d.bySource[src]++
	d.mu.Unlock()
	if evicted != nil {
		evicted.mark(RefusedWaitingCap)
		d.log("ssh connection closed: the most waiting to log in are open, and it waited longest", "remote", evicted.RemoteAddr().String(), "max_unauthenticated", d.maxTotal)
		evicted.Conn.Close()
	}
	_ = conn.SetDeadline(g.deadline)
	ctx.SetValue(guardKey{}, g)
	return g
}

// config is the server's ServerConfigCallback: the key's proof lets the
// connection through the door.
func (d *frontDoor) config(ctx ssh.Context) *gossh.ServerConfig {
	return &gossh.ServerConfig{
		VerifiedPublicKeyCallback: func(_ gossh.ConnMetadata, _ gossh.PublicKey, p *gossh.Permissions, _ string) (*gossh.Permissions, error) {
			if g, ok := ctx.Value(guardKey{}).(*guardConn); ok {
				g.loggedIn()
			}
			return p, nil
		},
	}
}

// refuse counts a connection turned away.
func (d *frontDoor) refuse(reason string) {
	if d.refused != nil && !d.stopped.Load() {
		d.refused(reason)
	}
}

// stop says the server closes every connection now: not refusals.
func (d *frontDoor) stop() { d.stopped.Store(true) }

// waitingCount returns how many connections wait to log in.
func (d *frontDoor) waitingCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.waiting.Len()
}

// removeLocked takes g off the waiting list, once.
func (d *frontDoor) removeLocked(g *guardConn) {
	if g.elem == nil {
		return
	}
	d.waiting.Remove(g.elem)
	g.elem = nil
	if d.bySource[g.source]--; d.bySource[g.source] <= 0 {
		delete(d.bySource, g.source)
	}
}

type guardKey struct{}

// guardConn is a connection at the front door: until it has logged in,
// every deadline the SSH server sets on it is held to the handshake
// deadline (the server sets its idle deadline before every read).
type guardConn struct {
	net.Conn
	door     *frontDoor
	source   string
	deadline time.Time

	mu   sync.Mutex
	in   bool          // logged in
	elem *list.Element // in door.waiting; guarded by door.mu
	// why is the refusal it ends with if it never logs in, when known
	// before the end (a key refused, the door full); counted once.
	why     string
	counted bool
}

// mark notes why the connection is being turned away; the first reason
// stays (a key refused, then the handshake deadline: the key).
func (g *guardConn) mark(why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.why == "" {
		g.why = why
	}
}

func (g *guardConn) keyRefused() { g.mark(RefusedUnknownKey) }

// ended counts the connection as refused, once, if it never logged in:
// for the reason it was marked with, else the handshake's deadline if it
// passed, else a handshake that failed (no key offered, a password, a
// client that gave up).
func (g *guardConn) ended() {
	g.mu.Lock()
	if g.in || g.counted {
		g.mu.Unlock()
		return
	}
	g.counted = true
	why := g.why
	if why == "" {
		why = RefusedHandshakeFailed
		if !time.Now().Before(g.deadline) {
			why = RefusedHandshakeTimeout
		}
	}
	g.mu.Unlock()
	g.door.refuse(why)
}

func (g *guardConn) loggedIn() {
	g.mu.Lock()
	g.in = true
	g.mu.Unlock()
	g.door.mu.Lock()
	g.door.removeLocked(g)
	g.door.mu.Unlock()
}

// bound is the deadline to set instead of t while the connection waits.
func (g *guardConn) bound(t time.Time) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.in || (!t.IsZero() && t.Before(g.deadline)) {
		return t
	}
	return g.deadline
}

func (g *guardConn) SetDeadline(t time.Time) error      { return g.Conn.SetDeadline(g.bound(t)) }
func (g *guardConn) SetReadDeadline(t time.Time) error  { return g.Conn.SetReadDeadline(g.bound(t)) }
func (g *guardConn) SetWriteDeadline(t time.Time) error { return g.Conn.SetWriteDeadline(g.bound(t)) }

func (g *guardConn) Close() error {
	g.ended()
	g.door.mu.Lock()
	g.door.removeLocked(g)
	g.door.mu.Unlock()
	return g.Conn.Close()
}

// sourceOf is the address a connection comes from, without its port.
func sourceOf(a net.Addr) string {
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

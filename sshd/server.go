// Package sshd serves the chat over SSH (`chorus serve --ssh ADDR`): every
// connection gets its own chat — a Bubble Tea program on the connection's
// terminal, sized and resized with it — while the controller and the
// endpoints are shared. Users are the keys of an authorized_keys file;
// each key has its own directory (sessions, outputs) and its chat reads
// and writes files only there.
//
// Only public-key logins are accepted: no password, no keyboard-
// interactive, no shell or command, no port forwarding.
package sshd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"charm.land/wish/v2"
	"github.com/charmbracelet/ssh"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui"
)

// Options configure the server. Config and Service are required.
type Options struct {
	// Config is the loaded configuration, shared read-only by every chat.
	Config *config.Config
	// Service is the chat service every connection's chat runs on: each
	// key's chat gets a service At its own sessions folder, over the one
	// engine — the controller, the catalog and the endpoints are shared,
	// safe for concurrent turns — and the one warm prompt head.
	Service *conversation.Service
	// Constraints are the standing constraints each chat starts with.
	Constraints pipeline.Constraints
	// HostKey is the server's private key file, created on first start.
	HostKey string
	// AuthorizedKeys is the file of public keys allowed in. It is read
	// again at every login, so a key added or removed counts at once.
	AuthorizedKeys string
	// UsersDir holds one directory per key (see userDirName), each with
	// its sessions and outputs.
	UsersDir string
	// MaxSessions bounds the chats served at once; 0 means 8.
	MaxSessions int
	// IdleTimeout closes a connection with no traffic for that long; 0
	// never does.
	IdleTimeout time.Duration
	// HandshakeTimeout is how long a connection has to log in (0:
	// DefaultHandshakeTimeout), whatever IdleTimeout says.
	HandshakeTimeout time.Duration
	// MaxUnauthenticated bounds the connections waiting to log in, from
	// all sources (0: DefaultMaxUnauthenticated, and never more than the
	// file limit leaves); MaxUnauthenticatedPerSource those from one
	// address (0: DefaultMaxUnauthenticatedPerSource). See frontdoor.go.
	MaxUnauthenticated          int
	MaxUnauthenticatedPerSource int
	// KeepAlive is how often a chat's client is asked for a sign of life;
	// one that gives none within another KeepAlive is gone, and its chat
	// ends (keepalive.go). 0 means DefaultKeepAlive; negative never asks.
	KeepAlive time.Duration
	// AllowPull lets ssh users download models onto the controller
	// server (/pull); off, they use the models it has (serve.allow_pull).
	AllowPull bool
	// FileLimit is the open-file limit the front door is sized by; 0
	// reads (and raises to its hard limit) the process's RLIMIT_NOFILE.
	FileLimit int
	// Version is Chorus's version, sent in the SSH banner and written
	// into recordings.
	Version string
	// Logger records connections (key fingerprint, remote address),
	// refusals and each chat's saves; nil discards.
	Logger *slog.Logger
	// Refused, when set, is told of every connection turned away, by
	// reason (one of RefusalReasons): the server's metrics.
	Refused func(reason string)
	// NewProgram builds a chat's program; nil is ui.NewProgram. A test
	// wraps it (a chat that panics).
	NewProgram func(context.Context, ui.Options) (*ui.Program, error)
}

// Server is the SSH server of chats.
type Server struct {
	opts Options
	log  *slog.Logger
	srv  *ssh.Server
	door *frontDoor

	mu     sync.Mutex
	active int
	// chats counts the handlers running, so Close waits for their
	// sessions to be saved.
	chats sync.WaitGroup

	// The drain (drain.go): the service's drain is shared by every
	// key's service (Service.At), so one Begin stops every chat's turns;
	// progs are the chats to tell; ln is the listener to close; drained
	// closes when Drain has ended every chat.
	progs    map[*ui.Program]struct{}
	draining bool
	ln       net.Listener
	drained  chan struct{}
}

// New checks the options, loads (or creates) the host key and reads the
// authorized keys once, so a server that could let nobody in says so
// before it listens.
func New(opts Options) (*Server, error) {
	if opts.Config == nil || opts.Service == nil {
		return nil, errors.New("sshd: Options.Config and Options.Service are required")
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 8
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Refused == nil {
		opts.Refused = func(string) {}
	}
	if opts.NewProgram == nil {
		opts.NewProgram = ui.NewProgram
	}
	s := &Server{opts: opts, log: log, progs: map[*ui.Program]struct{}{}, drained: make(chan struct{})}
	_, skipped, err := readAuthorizedKeys(opts.AuthorizedKeys)
	for _, sk := range skipped {
		log.Warn("ssh key skipped", "reason", sk)
	}
	if err != nil {
		return nil, err
	}
	signer, created, err := hostKey(opts.HostKey)
	if err != nil {
		return nil, err
	}
	if created {
		log.Info("ssh host key created", "path", opts.HostKey, "fingerprint", fingerprint(signer.PublicKey()))
	}
	files := opts.FileLimit
	if files <= 0 {
		files = fileLimit()
	}
	s.door = newFrontDoor(opts.HandshakeTimeout, opts.MaxUnauthenticated, opts.MaxUnauthenticatedPerSource, files, opts.MaxSessions, log.Warn)
	s.door.refused = opts.Refused
	log.Info("ssh front door", "file_limit", files, "handshake_timeout", s.door.handshake, "max_unauthenticated", s.door.maxTotal,
		"max_unauthenticated_per_source", s.door.maxSource)
	version := "chorus"
	if opts.Version != "" {
		version = "chorus_" + opts.Version
	}
	srv, err := wish.NewServer(
		wish.WithVersion(version),
		wish.WithPublicKeyAuth(s.authorize),
		wish.WithMiddleware(chain(s.middleware()...)),
		func(srv *ssh.Server) error {
			// Set before wish.NewServer looks: it would otherwise write a
			// key of its own into the working directory.
			srv.AddHostKey(signer)
			srv.IdleTimeout = opts.IdleTimeout
			// Only sessions: an exec request is answered by the chat
			// handler with a message, a subsystem (sftp) is refused, and
			// forwarding stays off (nil callbacks deny it).
			srv.SessionRequestCallback = func(_ ssh.Session, kind string) bool { return kind == "shell" || kind == "exec" }
			srv.ConnectionFailedCallback = s.connectionFailed
			// Before a login: a deadline, and caps per source and in all
			// (frontdoor.go).
			srv.ConnCallback = s.door.admit
			srv.ServerConfigCallback = s.door.config
			return nil
		},
	)
	if err != nil {
		return nil, fmt.Errorf("sshd: %w", err)
	}
	s.srv = srv
	return s, nil
}

// keepAliveEvery is the keepalive interval in effect, 0 for none.
func (s *Server) keepAliveEvery() time.Duration {
	switch {
	case s.opts.KeepAlive < 0:
		return 0
	case s.opts.KeepAlive == 0:
		return DefaultKeepAlive
	}
	return s.opts.KeepAlive
}

// Waiting returns how many connections are waiting to log in.
func (s *Server) Waiting() int { return s.door.waitingCount() }

// HostKeyFingerprint returns the server's host key fingerprint, for users
// to check against what their client shows on first connection.
func (s *Server) HostKeyFingerprint() string {
	if len(s.srv.HostSigners) == 0 {
		return ""
	}
	return fingerprint(s.srv.HostSigners[0].PublicKey())
}

// Serve accepts connections on l until ctx ends, then closes every
// connection and waits (a little) for their chats to be saved — at once,
// turns in flight cancelled and saved as such. Drain ends it gently
// instead: Serve returns once Drain has.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	if s.opts.Config.WarmController() {
		s.opts.Service.Warm()
		defer s.opts.Service.Warmer().Stop()
	}
	s.mu.Lock()
	s.ln = l
	s.mu.Unlock()
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(l) }()
	select {
	case err := <-errc:
		if !s.isDraining() {
			return err
		}
		// Drain closed the listener; the chats go on until it is done.
		select {
		case <-s.drained:
		case <-ctx.Done():
		}
		return s.close()
	case <-ctx.Done():
	case <-s.drained:
	}
	err := s.close()
	<-errc
	return err
}

// close closes every connection and waits (a little) for the chats to
// be saved.
func (s *Server) close() error {
	s.door.stop()
	err := s.srv.Close()
	if !s.waitChats() {
		s.log.Warn("ssh server stopped before every chat was saved")
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// waitChats waits, ten seconds at most, for the chats to end and be
// saved; false when some had not.
func (s *Server) waitChats() bool {
	done := make(chan struct{})
	go func() {
		s.chats.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

// authorize admits a key listed in the authorized_keys file, read now. A
// key refused marks its connection, which counts as refused for an
// unknown key if it never logs in (a client may offer several keys).
func (s *Server) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	keys, _, err := readAuthorizedKeys(s.opts.AuthorizedKeys)
	if err == nil {
		for _, k := range keys {
			if ssh.KeysEqual(key, k.key) {
				return true
			}
		}
	}
	if g, ok := ctx.Value(guardKey{}).(*guardConn); ok {
		g.keyRefused()
	}
	if err != nil {
		s.log.Error("ssh login refused: the authorized keys cannot be used", "remote", ctx.RemoteAddr().String(), "err", err.Error())
		return false
	}
	s.log.Warn("ssh login refused: unknown key", "fingerprint", fingerprint(key), "user", ctx.User(), "remote", ctx.RemoteAddr().String())
	return false
}

// connectionFailed logs a connection that ended before a session: a
// failed handshake or login (a password tried where none is accepted).
func (s *Server) connectionFailed(conn net.Conn, err error) {
	s.log.Info("ssh connection failed", "remote", conn.RemoteAddr().String(), "err", err.Error())
}

// acquire takes a chat slot; false when all are in use.
func (s *Server) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active >= s.opts.MaxSessions {
		return false
	}
	s.active++
	return true
}

func (s *Server) release() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
}

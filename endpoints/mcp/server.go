package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/text"
)

// server is one configured server and its session. The session is made
// on first use (Start), and made again after the server crashed or was
// stopped for a message over the bound: the next call restarts it.
type server struct {
	cfg    Server
	opts   *Options
	client *sdk.Client

	mu   sync.Mutex
	sess *sdk.ClientSession
	// why tells why the session ended or could not be made (with the
	// fix), for Check, Status and the next call's error.
	why   error
	tried bool
	// tools are the tools Chorus uses, in the server's order, as last
	// listed: they outlive a crash, so a task can restart the server.
	tools []*sdk.Tool
	info  string
	// problems are the configuration's tool names the server does not
	// offer (a typo in tools: or tasks:), each with its fix.
	problems []string
	// ended records why the current session's transport failed (the
	// process exited, a message over the bound, output that is not
	// JSON-RPC), set by the transport.
	ended *endReason

	// progress routes notifications/progress to the call that asked,
	// by its token.
	progress sync.Map
	seq      atomic.Int64

	// rootsMu is held for reading by calls under the roots last sent
	// (rootsKey, sent), and for writing while they change (roots.go);
	// asked counts a stdio server's requests for them.
	rootsMu  sync.RWMutex
	rootsKey string
	sent     []string
	asked    *rootsAsk
}

// rootsAsk counts a stdio server's requests for the roots and the
// answers it gives them — the line it writes to its standard error once it
// has taken a list (server-filesystem writes one for each) — so that a
// change of roots can wait until the server has taken it (roots.go). A
// line no request is owed (a start-up message) is not an answer; seen says
// the server ever asked (one that keeps to roots).
type rootsAsk struct {
	mu         sync.Mutex
	asks, logs int64
	seen       bool
	ch         chan struct{}
}

func (a *rootsAsk) ask() {
	a.mu.Lock()
	a.seen = true
	a.asks++
	a.mu.Unlock()
	a.poke()
}

func (a *rootsAsk) logged(n int) {
	a.mu.Lock()
	owed := a.logs < a.asks
	a.logs = min(a.asks, a.logs+int64(n))
	a.mu.Unlock()
	if owed {
		a.poke()
	}
}

// state is the requests and answers so far, and whether it ever asked.
func (a *rootsAsk) state() (asks, logs int64, seen bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asks, a.logs, a.seen
}

func (a *rootsAsk) poke() {
	select {
	case a.ch <- struct{}{}:
	default:
	}
}

// endReason is set once by a session's transport when it fails; the
// first cause wins (a message over the bound, then the exit it causes).
type endReason struct {
	mu  sync.Mutex
	err error
}

func (r *endReason) set(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

func (r *endReason) get() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func newServer(cfg Server, opts *Options) *server {
	s := &server{cfg: cfg, opts: opts, asked: &rootsAsk{ch: make(chan struct{}, 1)}}
	s.client = sdk.NewClient(&sdk.Implementation{Name: "chorus", Title: "Chorus", Version: opts.Version}, &sdk.ClientOptions{
		// Roots — the folders the turn may touch, sent before each call
		// (roots.go) — and no sampling, no elicitation: a server learns
		// nothing else of this machine from its client.
		Capabilities: &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true}}, //nolint:staticcheck // roots are deprecated from protocol 2026-07-28; server-filesystem 2026.8.31 keeps to them
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if req == nil || req.Params == nil {
				return
			}
			if f, ok := s.progress.Load(fmt.Sprint(req.Params.ProgressToken)); ok {
				f.(func(*sdk.ProgressNotificationParams))(req.Params)
			}
		},
	})
	return s
}

// session returns the running session, starting (or reaching) the server
// first when there is none: at Start, and after a crash.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != nil {
		return s.sess, nil
	}
	s.tried = true
	start := time.Now()
	sess, ended, stop, err := s.connect(ctx)
	if err != nil {
		s.why = err
		s.opts.Logger.Warn("mcp server not started", "server", s.cfg.Name, "error", err.Error())
		return nil, err
	}
	tools, offered, err := s.listTools(ctx, sess)
	if err != nil {
		_ = sess.Close()
		stop()
		s.why = err
		s.opts.Logger.Warn("mcp server tools not listed", "server", s.cfg.Name, "error", err.Error())
		return nil, err
	}
	s.sess, s.ended, s.tools, s.why = sess, ended, tools, nil
	s.problems = s.unoffered(offered)
	for _, p := range s.problems {
		s.opts.Logger.Warn("mcp tool not offered", "server", s.cfg.Name, "problem", p)
	}
	if r := sess.InitializeResult(); r != nil && r.ServerInfo != nil {
		s.info = strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
	}
	s.opts.Logger.Info("mcp server started", "server", s.cfg.Name, "tools", len(tools), "ms", time.Since(start).Milliseconds())
	go s.watch(sess, ended, stop)
	return sess, nil
}

// watch notes when a session ends on its own (the server exited, the
// connection broke), so the next call starts it again.
func (s *server) watch(sess *sdk.ClientSession, ended *endReason, stop func()) {
	_ = sess.Wait()
	stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != sess {
		return
	}
	s.sess = nil
	why := ended.get()
	if why == nil {
		why = errors.New("the connection to the server closed")
	}
	s.why = failf(endpoints.ErrUnavailable, "the MCP server %s stopped: %v", s.cfg.Name, why)
	s.opts.Logger.Warn("mcp server stopped", "server", s.cfg.Name, "error", why.Error())
}

// connect makes a session: a stdio server started, an HTTP one reached
// (streamable HTTP, or HTTP+SSE when the server does not speak it). The
// session lives on a context of its own — an HTTP+SSE session reads its
// event stream on the context it was made with — and only the handshake
// is bounded by StartTimeout.
func (s *server) connect(ctx context.Context) (*sdk.ClientSession, *endReason, func(), error) {
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	expired := make(chan struct{})
	timer := time.AfterFunc(s.opts.StartTimeout, func() {
		close(expired)
		stop()
	})
	// The caller's cancel ends the handshake too.
	unhook := context.AfterFunc(ctx, stop)
	sess, ended, err := s.handshake(sctx)
	unhook()
	if !timer.Stop() || err != nil {
		stop()
		if err == nil {
			_ = sess.Close()
			err = context.DeadlineExceeded
		}
		timedOut := false
		select {
		case <-expired:
			timedOut = true
		default:
		}
		return nil, nil, nil, s.startError(ctx, timedOut, err, ended)
	}
	return sess, ended, stop, nil
}

// handshake connects on ctx.
func (s *server) handshake(ctx context.Context) (*sdk.ClientSession, *endReason, error) {
	ended := &endReason{}
	if s.cfg.Stdio() {
		t := &stdioTransport{srv: s, ended: ended}
		sess, err := s.client.Connect(ctx, t, nil)
		if err != nil {
			t.stop()
			return nil, ended, &stdioErr{err, t}
		}
		return sess, ended, nil
	}
	h := newHTTPClient(s, ended)
	if s.cfg.Transport != "sse" {
		sess, err := s.client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: h.client, MaxEventSize: s.opts.MaxMessage, MaxRetries: 2}, nil)
		if err == nil {
			return sess, ended, nil
		}
		if s.cfg.Transport == "streamable" || h.refused() != nil || ctx.Err() != nil || !h.answered4xx() {
			// Not an older server: one that is not there, or refuses.
			return nil, ended, err
		}
		// An older server: the HTTP+SSE transport of protocol
		// 2024-11-05 (a GET opens the event stream).
		first := err
		ended = &endReason{}
		h = newHTTPClient(s, ended)
		sess, err = s.client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: h.client, MaxEventSize: s.opts.MaxMessage}, nil)
		if err == nil {
			return sess, ended, nil
		}
		if h.refused() == nil && ctx.Err() == nil {
			err = fmt.Errorf("%w (and as HTTP+SSE: %v)", first, err) //nolint:errorlint // the first answer classifies the failure; the fallback's is only told
		}
		return nil, ended, err
	}
	sess, err := s.client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: h.client, MaxEventSize: s.opts.MaxMessage}, nil)
	return sess, ended, err
}

// stdioErr carries the stdio transport of a failed start, for the tail
// of the server's standard error.
type stdioErr struct {
	err error
	t   *stdioTransport
}

func (e *stdioErr) Error() string { return e.err.Error() }
func (e *stdioErr) Unwrap() error { return e.err }

// startError explains a server that could not be started or reached,
// with the fix.
func (s *server) startError(ctx context.Context, timedOut bool, err error, ended *endReason) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var t *stdioTransport
	var se *stdioErr
	if errors.As(err, &se) {
		t = se.t
	}
	if why := ended.get(); why != nil {
		// The exit, with the server's last words already in it.
		err, t = why, nil
	}
	var start *startErr
	if errors.As(err, &start) {
		return start.err
	}
	var he *httpRefusal
	if errors.As(err, &he) {
		return he.explain(s.cfg)
	}
	if timedOut {
		what := "answer the MCP handshake"
		if t != nil {
			what = "answer the MCP handshake on its standard output"
		}
		return failf(endpoints.ErrUnreachable, "the MCP server %s did not %s within %s — check that %s is an MCP server%s",
			s.cfg.Name, what, s.opts.StartTimeout, s.where(), stderrHint(t))
	}
	var off *offOrigin
	if errors.As(err, &off) {
		return failf(endpoints.ErrUnavailable, "the MCP server %s: %v; fix %s.url", s.cfg.Name, off, s.cfg.key())
	}
	var re *scope.RedirectError
	if errors.As(err, &re) {
		from, _ := url.Parse(re.From)
		to, _ := url.Parse(re.To)
		if !scope.SameOrigin(from, to) {
			return failf(endpoints.ErrUnavailable, "the MCP server %s redirected to %s, another origin — Chorus does not follow it with the server's key; fix %s.url",
				s.cfg.Name, re.To, s.cfg.key())
		}
		return failf(endpoints.ErrUnavailable, "the MCP server %s redirected a %s to %s — Chorus never sends a message again where a redirect points; fix %s.url",
			s.cfg.Name, re.Method, re.To, s.cfg.key())
	}
	if !s.cfg.Stdio() {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the network's own words, without the SDK's wrapping
		}
		// A server on this machine is the user's to start; one elsewhere
		// (Hugging Face's, a Space) is not.
		fix := "start it"
		if u, perr := url.Parse(s.cfg.URL); perr == nil && !isLoopback(u.Hostname()) {
			fix = "check the network and that the server is up"
		}
		return failf(endpoints.ErrUnreachable, "the MCP server %s is not reachable at %s (%v) — %s, or fix %s.url",
			s.cfg.Name, s.cfg.URL, err, fix, s.cfg.key())
	}
	return failf(endpoints.ErrUnreachable, "the MCP server %s did not start: %v%s", s.cfg.Name, err, stderrHint(t))
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// where is the command line or the URL, for messages, the status and the
// log: with their secrets hidden (--token X, ?token=…: text.RedactArgs).
func (s *server) where() string {
	if s.cfg.Stdio() {
		return strings.Join(append([]string{s.cfg.Command}, text.RedactArgs(s.cfg.Args)...), " ")
	}
	return text.RedactURL(s.cfg.URL)
}

// listTools reads every page of the server's tools, keeping those the
// configuration allows; offered are the names of all it listed.
func (s *server) listTools(ctx context.Context, sess *sdk.ClientSession) (out []*sdk.Tool, offered []string, err error) {
	cctx, cancel := context.WithTimeout(ctx, s.opts.StartTimeout)
	defer cancel()
	offered = []string{}
	for t, err := range sess.Tools(cctx, nil) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, failf(endpoints.ErrUnavailable, "the MCP server %s did not list its tools: %v", s.cfg.Name, err)
		}
		if t == nil || !validToolName(t.Name) {
			continue
		}
		if offered != nil && len(offered) < maxOffered {
			offered = append(offered, t.Name)
		} else {
			offered = nil // more than Chorus keeps: which it offers is unknown
		}
		if len(s.cfg.Tools) > 0 && !slices.Contains(s.cfg.Tools, t.Name) {
			continue
		}
		out = append(out, t)
		if len(out) >= maxTools {
			return out, nil, nil // not read to the end: offered is unknown
		}
	}
	return out, offered, nil
}

// unoffered words each tool the configuration names (in tools: or
// tasks:) that the server did not list: a typo would otherwise only make
// the tool silently absent.
func (s *server) unoffered(offered []string) []string {
	if offered == nil {
		return nil // not read to the end: absence proves nothing
	}
	has := func(n string) bool { return slices.Contains(offered, n) }
	list := strings.Join(offered, ", ")
	if len(offered) > 20 {
		list = strings.Join(offered[:20], ", ") + fmt.Sprintf(", … %d more", len(offered)-20)
	}
	var out []string
	for _, n := range s.cfg.Tools {
		if !has(n) {
			out = append(out, fmt.Sprintf("mcp[%d].tools: %s offers no tool %q (it offers: %s)", s.cfg.Index, s.cfg.Name, n, list))
		}
	}
	tasks := slices.Sorted(maps.Keys(s.cfg.Tasks))
	for _, task := range tasks {
		for _, n := range s.cfg.Tasks[task] {
			if !has(n) {
				out = append(out, fmt.Sprintf("mcp[%d].tasks: %s offers no tool %q for %s (it offers: %s)", s.cfg.Index, s.cfg.Name, n, task, list))
			}
		}
	}
	return out
}

// maxTools bounds the tools Chorus takes from one server; maxOffered the
// names it keeps to check the configuration's against.
const (
	maxTools   = 200
	maxOffered = 2000
)

// validToolName admits the names MCP allows (letters, digits, _ - .,
// at most 128), so a tool's name can never smuggle text into the plan's
// prompt or schema.
func validToolName(n string) bool {
	if n == "" || len(n) > 128 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// tool returns the listed tool called name, or why there is none.
func (s *server) tool(name string) (*sdk.Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tools {
		if t.Name == name {
			return t, nil
		}
	}
	switch {
	case s.tools == nil && s.why != nil:
		return nil, s.why
	case s.tools == nil && !s.tried:
		return nil, failf(endpoints.ErrUnavailable, "the MCP server %s has not been started", s.cfg.Name)
	}
	return nil, failf(endpoints.ErrUnavailable, "the MCP server %s has no tool %q (chorus mcp list shows its tools)", s.cfg.Name, name)
}

// toolList returns the tools as last listed.
func (s *server) toolList() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools)
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Where: s.where(), Server: s.info, Tools: []string{}}
	st.Transport = "stdio"
	if !s.cfg.Stdio() {
		st.Transport = "http"
		if s.cfg.Transport == "sse" {
			st.Transport = "sse"
		}
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, s.cfg.Name+"."+t.Name)
	}
	st.Problems = slices.Clone(s.problems)
	switch {
	case s.sess != nil:
		st.State = "running"
	case s.why != nil:
		st.State, st.Error = "failed", s.why.Error()
	default:
		st.State = "not started"
	}
	return st
}

// close ends the session; a stdio server is stopped (stdin closed, then
// SIGTERM, then SIGKILL to its process group).
func (s *server) close() {
	s.mu.Lock()
	sess := s.sess
	s.sess = nil
	s.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
}

// drop ends a session that broke mid-call (a message over the bound,
// output that is not JSON-RPC), so the next call starts the server again.
func (s *server) drop(sess *sdk.ClientSession, why error) {
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
		s.why = why
	}
	s.mu.Unlock()
	_ = sess.Close()
}

// token returns a fresh progress token.
func (s *server) token() string {
	return "chorus-" + strconv.FormatInt(s.seq.Add(1), 10)
}

package mcpserve

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/skills"
)

// HTTPOptions configure the streamable HTTP handler of `chorus mcp serve
// --http`.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer <token>); others get 401. On 127.0.0.1 every
	// user of the machine can reach the server, and a call runs Chorus —
	// models, tools, files — as the user who started it. It is never
	// logged.
	Token string
	// Logger records refused requests (never the token); nil discards.
	Logger *slog.Logger
}

// sessionTimeout closes an HTTP client session idle this long.
const sessionTimeout = 30 * time.Minute

// MaxBody is the largest request body the HTTP handler reads: one call
// carrying a file of Options.MaxFile as base64 (four bytes for every
// three), with room for the rest of the call. The SDK's own default, 4 MiB,
// refused files far under the 50 MB docs/mcp.md promises.
func (s *Server) MaxBody() int64 {
	return (s.opts.MaxFile+2)/3*4 + 1<<20
}

// baseHeap is the heap the server holds besides its big calls: the
// engine, the catalog, the chats, the small calls.
const baseHeap = 256 << 20

// MemoryTarget is the heap the server needs at most over HTTP: baseHeap,
// and for each big call in flight (Options.MaxBigCalls) its body three
// times over — the SDK reads it, decodes the message from it, and the
// call's arguments from that; the files are decoded from the arguments
// straight to disk (files.go). `chorus mcp serve --http` sets it as the
// Go runtime's soft memory limit (unless GOMEMLIMIT is set): the collector
// then keeps the heap near what the calls hold, instead of letting it grow
// to twice that between collections — six 50 MB calls at once peaked at
// 1.1 GB without it, 0.7 GB with it.
func (s *Server) MemoryTarget() int64 {
	return baseHeap + int64(s.opts.MaxBigCalls)*3*s.MaxBody()
}

// HTTPHandler serves the server as streamable HTTP at /mcp: each client
// session a chat, request bodies up to MaxBody, cross-origin requests
// refused (a web page the user visits cannot call it), and — with a token
// — only requests that carry it.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{SessionTimeout: sessionTimeout, MaxRequestBodyBytes: s.MaxBody(), Logger: log})
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(o.Token, log, s.limitBig(log, http.NewCrossOriginProtection().Handler(h))))
	return mux
}

// limitBig lets at most Options.MaxBigCalls requests whose body is over
// Options.BigBody (or of unknown length) in at once: each holds its body —
// up to MaxBody, the SDK's decoding of it and the files it carries — in
// memory until its call ends, so six 50 MB calls at once took 2.6 GB. The
// others wait up to BigWait for a turn, then get 503 with Retry-After;
// smaller requests never wait.
func (s *Server) limitBig(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.ContentLength >= 0 && r.ContentLength <= s.opts.BigBody {
			next.ServeHTTP(w, r)
			return
		}
		t := time.NewTimer(s.opts.BigWait)
		defer t.Stop()
		select {
		case s.big <- struct{}{}:
		case <-t.C:
			log.Warn("mcp http request refused: too many big calls in flight", "remote", r.RemoteAddr, "bytes", r.ContentLength, "in_flight", s.opts.MaxBigCalls)
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.opts.BigWait.Seconds()))))
			http.Error(w, fmt.Sprintf("this Chorus MCP server is taking %d calls over %s at once (serve.mcp_big_calls), and none finished within %s: send the call again in a moment",
				s.opts.MaxBigCalls, skills.HumanBytes(s.opts.BigBody), s.opts.BigWait), http.StatusServiceUnavailable)
			return
		case <-r.Context().Done():
			return
		}
		defer func() { <-s.big }()
		next.ServeHTTP(w, r)
	})
}

// requireToken passes on the requests that carry token as their bearer
// token, all of them when token is empty; the rest get 401 with the
// challenge RFC 6750 asks for. The comparison takes the same time however
// much of a guess is right.
func requireToken(token string, log *slog.Logger, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			log.Warn("mcp http request refused: no valid bearer token", "remote", r.RemoteAddr, "method", r.Method)
			w.Header().Set("WWW-Authenticate", `Bearer realm="chorus"`)
			http.Error(w, "this Chorus MCP server wants a bearer token: send Authorization: Bearer <token> (the one chorus mcp serve --http was started with)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

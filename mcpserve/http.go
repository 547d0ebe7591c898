package mcpserve

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
	mux.Handle("/mcp", requireToken(o.Token, log, http.NewCrossOriginProtection().Handler(h)))
	return mux
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

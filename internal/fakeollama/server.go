// Package fakeollama is a protocol-faithful stand-in for an Ollama server, for
// tests only. It speaks the wire protocol of Ollama v0.11.4 as the official
// client (github.com/ollama/ollama/api) sees it: the same routes, the same
// JSON shapes (it marshals the api package's own types), NDJSON streaming
// flushed chunk by chunk, and the real server's status codes and error texts.
//
// Tests script the model's replies with OnChat / OnGenerate, inspect what the
// client sent with Requests and ChatRequests, and simulate an Ollama that
// went away with Stop.
package fakeollama

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Version is what GET /api/version reports: the Ollama release whose wire
// behaviour the fake mirrors.
const Version = "0.11.4"

// Recorded is one request the server received.
type Recorded struct {
	Method string
	Path   string
	// Body is the raw request body, exactly as the client sent it.
	Body []byte
	// Time is when the request arrived, End when the server finished
	// answering it (zero while it is being served): a benchmark's view of
	// when the model was busy with it.
	Time time.Time
	End  time.Time
	// Canceled is true when the client went away (context cancelled,
	// connection closed) before the server finished answering.
	Canceled bool
	// Status is the HTTP status the server answered with (0 while the
	// request is still being served).
	Status int
}

// Server is a fake Ollama listening on a loopback port.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	srv      *httptest.Server
	stopOnce sync.Once

	mu         sync.Mutex
	models     map[string]*Model // by canonical lower-case name
	pullable   map[string]Model
	loaded     map[string]loadedModel
	requests   []*Recorded
	forget     bool // ForgetRequests: keep no bodies
	onChat     func(ctx context.Context, req *api.ChatRequest) Reply
	onGenerate func(ctx context.Context, req *api.GenerateRequest) Reply
	pullDelay  time.Duration
	inflight   int
	idle       *sync.Cond // signalled when inflight drops to 0
	// latency, when set, makes chats take the time a local runner would.
	latency *latencyState
}

type loadedModel struct {
	name      string
	numCtx    int
	expiresAt time.Time
}

// New starts a fake Ollama with no models. It is stopped when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		models:   map[string]*Model{},
		pullable: map[string]Model{},
		loaded:   map[string]loadedModel{},
	}
	s.idle = sync.NewCond(&s.mu)
	s.srv = httptest.NewServer(s.routes())
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Client returns an official Ollama client pointed at the server.
func (s *Server) Client() *api.Client {
	u, err := url.Parse(s.URL)
	if err != nil { // httptest always yields a valid URL
		panic(err)
	}
	return api.NewClient(u, s.srv.Client())
}

// Stop makes the server go away as a crashed or stopped Ollama would: open
// connections are cut (streams in flight end with an error on the client)
// and the port refuses new connections. URL keeps its value, so a client
// built earlier now fails to connect.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Close stops the server; it is the same as Stop and safe to call twice.
func (s *Server) Close() { s.Stop() }

// ForgetRequests stops keeping request bodies, for benchmarks that measure
// the memory of the client in the same process: a long chat's prompts would
// otherwise pile up here.
func (s *Server) ForgetRequests() {
	s.mu.Lock()
	s.forget = true
	s.mu.Unlock()
}

// Requests returns every request received so far, oldest first.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Recorded, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
		out[i].Body = bytes.Clone(r.Body)
	}
	return out
}

// WaitIdle blocks until no request is being served, so a test can look at
// Requests after a client gave up on one (Canceled is set only once the
// server noticed).
func (s *Server) WaitIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.inflight > 0 {
		s.idle.Wait()
	}
}

// RequestsTo returns the recorded requests whose path is path.
func (s *Server) RequestsTo(path string) []Recorded {
	var out []Recorded
	for _, r := range s.Requests() {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// ChatRequests returns the decodable /api/chat requests, oldest first.
func (s *Server) ChatRequests() []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range s.RequestsTo("/api/chat") {
		var req api.ChatRequest
		if json.Unmarshal(r.Body, &req) == nil {
			out = append(out, req)
		}
	}
	return out
}

// GenerateRequests returns the decodable /api/generate requests, oldest first.
func (s *Server) GenerateRequests() []api.GenerateRequest {
	var out []api.GenerateRequest
	for _, r := range s.RequestsTo("/api/generate") {
		var req api.GenerateRequest
		if json.Unmarshal(r.Body, &req) == nil {
			out = append(out, req)
		}
	}
	return out
}

// routes mirrors the router of server/routes.go for the endpoints Chorus uses.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	running := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			io.WriteString(w, "Ollama is running")
		}
	}
	mux.HandleFunc("GET /{$}", running) // GET also answers HEAD
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	})
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("GET /api/ps", s.handlePs)
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("POST /api/generate", s.handleGenerate)
	mux.HandleFunc("POST /api/pull", s.handlePull)
	return s.record(mux)
}

// record keeps every request, body included, before routing it.
func (s *Server) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &Recorded{Method: r.Method, Path: r.URL.Path, Body: body, Time: time.Now()}
		s.mu.Lock()
		if s.forget {
			rec.Body = nil
		}
		s.requests = append(s.requests, rec)
		s.inflight++
		s.mu.Unlock()

		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)

		s.mu.Lock()
		rec.End = time.Now()
		rec.Status = sw.status
		if rec.Status == 0 {
			rec.Status = http.StatusOK
		}
		rec.Canceled = r.Context().Err() != nil
		s.inflight--
		if s.inflight == 0 {
			s.idle.Broadcast()
		}
		s.mu.Unlock()
	})
}

// statusWriter remembers the status and keeps flushing possible.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// writeJSON answers as gin's c.JSON does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client may be gone
}

// writeError answers {"error": msg} with status, the real server's error shape.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// bindJSON decodes a request body as gin's ShouldBindJSON does, answering
// 400 with the real server's messages when it cannot.
func bindJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(r.Body).Decode(v)
	switch {
	case err == io.EOF:
		writeError(w, http.StatusBadRequest, "missing request body")
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

// markLoaded records that a model was used, for /api/ps.
func (s *Server) markLoaded(name string, opts map[string]any, keepAlive *api.Duration) {
	numCtx := 4096
	if v, ok := opts["num_ctx"].(float64); ok && v > 0 {
		numCtx = int(v)
	}
	d := 5 * time.Minute
	if keepAlive != nil {
		d = keepAlive.Duration
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d == 0 {
		delete(s.loaded, key(name))
		return
	}
	s.loaded[key(name)] = loadedModel{name: name, numCtx: numCtx, expiresAt: time.Now().Add(d)}
}

// Loaded returns the names of the models /api/ps currently lists.
func (s *Server) Loaded() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.loaded {
		out = append(out, l.name)
	}
	slices.Sort(out)
	return out
}

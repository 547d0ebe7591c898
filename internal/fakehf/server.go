// Package fakehf is for tests only. It provides protocol-faithful fakes of
// the two model servers Chorus talks to over HTTP: the Hugging Face Inference
// API (the hf-inference provider behind router.huggingface.co) and
// HuggingGPT's models_server (the "jarvis" local protocol).
//
// The fakes accept the payload shapes the real servers accept, reject the
// ones they reject with the real status codes and error bodies, and answer
// with realistic outputs derived from the input (a caption that names the
// image size, a WAV whose length encodes the text), so a test can tell that
// its input arrived. Every request is recorded with its timing, so tests can
// assert what ran and whether calls overlapped.
package fakehf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one request a fake received.
type Request struct {
	// Model is the model id from the path ("" when the path named none).
	Model string
	// Task is the task the model was registered with ("" when unknown).
	Task string
	// Route is what followed the model id: "", "/pipeline/sentence-similarity",
	// "/v1/chat/completions" and so on; for the other providers the step
	// of their protocol (fal-ai: "queue", "queue/status", "queue/result",
	// "queue/cancel", "sync"; replicate: "create", "prediction", "cancel";
	// together and nebius: "/v1/images/generations" and so on), and "cdn"
	// for a file download.
	Route string
	// Provider is the Inference Provider the request went to:
	// "hf-inference", "fal-ai", …; for the router's own chat route, the
	// one that answered; "" for the Hub and the CDNs.
	Provider string
	Method   string
	Path     string
	// Query is the raw query ("_subdomain=queue").
	Query   string
	Headers http.Header
	Body    []byte
	// Status is the HTTP status the fake answered (0 while in flight).
	Status int
	// Start and End are when the request arrived and when it was answered.
	Start, End time.Time
}

// JSON decodes the request body into v.
func (r Request) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// recorder keeps the request log and the in-flight count, and lets tests
// wait for concurrency without sleeping.
type recorder struct {
	mu          sync.Mutex
	reqs        []*Request
	inFlight    int
	maxInFlight int
	changed     chan struct{}
}

func (rec *recorder) begin(r *http.Request, body []byte) *Request {
	rr := &Request{
		Method:  r.Method,
		Path:    r.URL.Path,
		Query:   r.URL.RawQuery,
		Headers: r.Header.Clone(),
		Body:    body,
		Start:   time.Now(),
	}
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, rr)
	rec.inFlight++
	rec.maxInFlight = max(rec.maxInFlight, rec.inFlight)
	rec.broadcastLocked()
	rec.mu.Unlock()
	return rr
}

func (rec *recorder) end(rr *Request, status int) {
	rec.mu.Lock()
	rr.Status = status
	rr.End = time.Now()
	rec.inFlight--
	rec.broadcastLocked()
	rec.mu.Unlock()
}

// label names what a listed request was for. rr is already listed, so
// Requests may be copying it at this moment: the recorder's lock guards
// it. Empty values leave a field as it was.
func (rec *recorder) label(rr *Request, model, route, task string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if model != "" {
		rr.Model = model
	}
	if route != "" {
		rr.Route = route
	}
	if task != "" {
		rr.Task = task
	}
}

func (rec *recorder) broadcastLocked() {
	if rec.changed != nil {
		close(rec.changed)
	}
	rec.changed = make(chan struct{})
}

func (rec *recorder) requests() []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := make([]Request, len(rec.reqs))
	for i, r := range rec.reqs {
		out[i] = *r
	}
	return out
}

// waitInFlight blocks until at least n requests are being handled at once.
func (rec *recorder) waitInFlight(ctx context.Context, n int) error {
	for {
		rec.mu.Lock()
		if rec.inFlight >= n {
			rec.mu.Unlock()
			return nil
		}
		if rec.changed == nil {
			rec.changed = make(chan struct{})
		}
		ch := rec.changed
		have := rec.inFlight
		rec.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d requests in flight (have %d): %w", n, have, ctx.Err())
		}
	}
}

// statusWriter remembers the status written, for the request log.
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

// Unwrap lets http.ResponseController reach the connection (to flush
// and hijack it).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Server is a fake Hugging Face Inference Providers router and Hub.
// hf-inference requests go to {URL}/models/{model_id}, exactly as to
// https://router.huggingface.co/hf-inference; the other providers' routes
// are under Root ({Root}/fal-ai/…, {Root}/v1/chat/completions), as under
// https://router.huggingface.co, and the Hub's model API at
// {Root}/api/models/{id}.
type Server struct {
	// URL is the inference base, srv.URL + "/hf-inference"; pass it as the
	// endpoint's base URL.
	URL string
	// Root is the bare httptest server URL.
	Root string

	srv   *httptest.Server
	once  sync.Once
	rec   recorder
	mu    sync.Mutex
	token string
	// models by id.
	models map[string]*ModelBehaviour
	// mapping holds the providers of each Hub model, in order.
	mapping   map[string][]*ProviderModel
	hubStatus int
	// facts are what the Hub's model API says of models (Describe).
	facts map[string]HubFacts
	// files are the generated files on the providers' CDNs, by path.
	files       map[string]cdnFile
	fileSeq     int
	seq         int
	falJobs     map[string]*falJob
	predictions map[string]*prediction
}

// New starts a fake Hugging Face server that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{models: map[string]*ModelBehaviour{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.Root = s.srv.URL
	s.URL = s.srv.URL + "/hf-inference"
	t.Cleanup(s.Close)
	return s
}

// Close shuts the server down; later requests fail to connect. It is safe to
// call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// RequireToken makes every request need "Authorization: Bearer tok"; a
// missing or different token gets HTTP 401 with Hugging Face's body.
func (s *Server) RequireToken(tok string) {
	s.mu.Lock()
	s.token = tok
	s.mu.Unlock()
}

// Model registers a served model for task (a HuggingGPT task name such as
// "image-to-text") and returns its behaviour, which answers realistically
// by default. Models that are not registered get the real 404 answer.
// Registering an id again returns the existing behaviour with the new task.
func (s *Server) Model(id, task string) *ModelBehaviour {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.models[id]; ok {
		m.mu.Lock()
		m.task = task
		m.mu.Unlock()
		return m
	}
	m := &ModelBehaviour{id: id, task: task}
	s.models[id] = m
	return m
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request { return s.rec.requests() }

// RequestsFor returns the requests that named model.
func (s *Server) RequestsFor(model string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Model == model {
			out = append(out, r)
		}
	}
	return out
}

// WaitInFlight blocks until at least n requests are being handled at the
// same time, or ctx ends. Combine it with ModelBehaviour.Hold to prove that
// calls run in parallel without sleeping.
func (s *Server) WaitInFlight(ctx context.Context, n int) error { return s.rec.waitInFlight(ctx, n) }

// MaxInFlight returns the most requests that were ever handled at once.
func (s *Server) MaxInFlight() int {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return s.rec.maxInFlight
}

// maxBody bounds request bodies the fake reads.
const maxBody = 64 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	rr := s.rec.begin(r, body)
	sw := &statusWriter{ResponseWriter: w}
	defer func() { s.rec.end(rr, sw.status) }()
	if err != nil {
		writeError(sw, http.StatusBadRequest, "could not read request body")
		return
	}

	path := r.URL.Path
	if s.serveFile(sw, r, rr) {
		return
	}
	if id, ok := strings.CutPrefix(path, "/api/models/"); ok {
		s.serveHubModel(sw, r, id)
		return
	}
	if path == "/api/whoami-v2" {
		s.serveWhoami(sw, r)
		return
	}
	if path == "/v1/models" && r.Method == http.MethodGet {
		s.serveRouterModels(sw) // public, as the router's
		return
	}
	if !strings.HasPrefix(path, "/hf-inference/") {
		if !s.bearer(sw, r) {
			return
		}
		provider, rest, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		rr.Provider = provider
		switch provider {
		case "fal-ai":
			s.serveFal(sw, r, rest, body, rr)
		case "replicate":
			s.serveReplicate(sw, r, rest, body, rr)
		case "together", "nebius":
			s.serveOpenAIStyle(sw, r, provider, rest, body, rr)
		case "v1":
			rr.Provider = ""
			if rest != "chat/completions" {
				writeError(sw, http.StatusNotFound, "Not Found")
				return
			}
			s.serveAutoChat(sw, r, body, rr)
		default:
			rr.Provider = ""
			writeError(sw, http.StatusNotFound, "Not Found")
		}
		return
	}
	rr.Provider = "hf-inference"
	rest, ok := strings.CutPrefix(path, "/hf-inference/models/")
	if !ok {
		writeError(sw, http.StatusNotFound, "Not Found")
		return
	}
	model, route := splitRoute(rest)
	s.rec.label(rr, model, route, "")

	s.mu.Lock()
	token := s.token
	m := s.models[model]
	s.mu.Unlock()

	if token != "" {
		got, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch {
		case !hasBearer || got == "":
			writeError(sw, http.StatusUnauthorized, "You must provide a valid token to use the Inference API. Get one at https://huggingface.co/settings/tokens")
			return
		case got != token:
			writeError(sw, http.StatusUnauthorized, "Invalid credentials in Authorization header")
			return
		}
	}
	if m == nil {
		writeError(sw, http.StatusNotFound, fmt.Sprintf("Model %s does not exist", model))
		return
	}
	s.rec.label(rr, model, route, m.Task())
	if r.Method != http.MethodPost {
		writeError(sw, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	m.serve(sw, r, body)
}

// splitRoute separates a model id (which may contain slashes) from the
// sub-routes the Inference API knows.
func splitRoute(rest string) (model, route string) {
	for _, suffix := range []string{"/v1/chat/completions", "/v1/completions"} {
		if m, ok := strings.CutSuffix(rest, suffix); ok {
			return m, suffix
		}
	}
	if i := strings.Index(rest, "/pipeline/"); i >= 0 {
		return rest[:i], rest[i:]
	}
	return rest, ""
}

// writeError answers with Hugging Face's error body, {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

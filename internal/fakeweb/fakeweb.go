// Package fakeweb holds protocol-faithful fakes of the web APIs the
// retrieval endpoint reads: Wikipedia's REST API (MediaWiki's core REST
// search and the page summary endpoint) and a SearxNG instance's JSON
// search. They answer with the real payload shapes, status codes and
// error bodies, and record what they were asked.
package fakeweb

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Request is one request a fake received.
type Request struct {
	Method    string
	Path      string
	Query     url.Values
	UserAgent string
}

// recorder keeps the requests and a queue of rate-limit answers.
type recorder struct {
	mu         sync.Mutex
	reqs       []Request
	limited    int
	retryAfter string
}

func (r *recorder) record(req *http.Request) (limited bool, retryAfter string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), UserAgent: req.UserAgent()})
	if r.limited > 0 {
		r.limited--
		return true, r.retryAfter
	}
	return false, ""
}

// Requests returns every request received so far, in order.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

// RateLimit makes the next n requests answer 429 with the Retry-After
// header retryAfter (none when empty), as Wikimedia's and SearxNG's
// limiters do.
func (r *recorder) RateLimit(n int, retryAfter string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limited, r.retryAfter = n, retryAfter
}

func writeJSON(w http.ResponseWriter, ctype string, status int, v any) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// words splits text into lower-case words for matching.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
}

// score counts how many of the query's words appear in text.
func score(query, text string) int {
	have := words(text)
	n := 0
	for _, w := range words(query) {
		if len(w) > 2 && slices.Contains(have, w) {
			n++
		}
	}
	return n
}

func atoiOr(s string, def int) (int, bool) {
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

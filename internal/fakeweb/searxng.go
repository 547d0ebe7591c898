package fakeweb

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
)

// Page is one web page the fake SearxNG can find.
type Page struct {
	URL, Title, Content string
}

// SearxNG fakes a SearxNG instance's search:
//
//	GET /search?q=…&format=json[&language=…&pageno=…] → {query, number_of_results, results: [{url, title, content, engine, parsed_url, template, engines, positions, score, category, publishedDate}], answers, corrections, infoboxes, suggestions, unresponsive_engines}
//
// With the JSON format disabled (the default settings.yml) it answers 403
// as SearxNG does; an empty q is a 400.
type SearxNG struct {
	recorder
	// URL is the instance's base URL.
	URL string

	srv          *httptest.Server
	mu           sync.Mutex
	pages        []Page
	jsonOff      bool
	unresponsive []string
}

// NewSearxNG starts a fake SearxNG with pages, JSON enabled, closed when the
// test ends.
func NewSearxNG(t testing.TB, pages ...Page) *SearxNG {
	t.Helper()
	s := &SearxNG{pages: pages}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// DisableJSON makes format=json answer 403, as an instance whose
// settings.yml leaves json out of search.formats does.
func (s *SearxNG) DisableJSON() {
	s.mu.Lock()
	s.jsonOff = true
	s.mu.Unlock()
}

// Unresponsive lists engines reported as unresponsive with each answer.
func (s *SearxNG) Unresponsive(engines ...string) {
	s.mu.Lock()
	s.unresponsive = engines
	s.mu.Unlock()
}

func (s *SearxNG) serve(rw http.ResponseWriter, r *http.Request) {
	limited, retry := s.record(r)
	if limited {
		if retry != "" {
			rw.Header().Set("Retry-After", retry)
		}
		rw.Header().Set("Content-Type", "text/plain")
		rw.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(rw, "Too Many Requests")
		return
	}
	if r.URL.Path != "/search" && r.URL.Path != "/" {
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusNotFound)
		fmt.Fprint(rw, "<html><body><h1>404 Not Found</h1></body></html>")
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	jsonOff, unresponsive, pages := s.jsonOff, slices.Clone(s.unresponsive), slices.Clone(s.pages)
	s.mu.Unlock()
	if q.Get("format") == "json" && jsonOff {
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusForbidden)
		fmt.Fprint(rw, "<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>")
		return
	}
	if q.Get("q") == "" {
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(rw, "<html><body>No query</body></html>")
		return
	}
	if q.Get("format") != "json" {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(rw, "<!DOCTYPE html><html><body><h1>Results for %s</h1></body></html>", q.Get("q"))
		return
	}
	results := []map[string]any{}
	for i, p := range pages {
		if score(q.Get("q"), p.Title+" "+p.Content) == 0 {
			continue
		}
		u, _ := url.Parse(p.URL)
		parsed := []string{u.Scheme, u.Host, u.Path, "", u.RawQuery, ""}
		results = append(results, map[string]any{
			"url": p.URL, "title": p.Title, "content": p.Content, "engine": "duckduckgo",
			"parsed_url": parsed, "template": "default.html", "engines": []string{"duckduckgo", "brave"},
			"positions": []int{i + 1}, "score": 2.0 / float64(i+1), "category": "general", "publishedDate": nil, "thumbnail": "", "priority": "",
		})
	}
	ur := [][]string{}
	for _, e := range unresponsive {
		ur = append(ur, []string{e, "timeout"})
	}
	writeJSON(rw, "application/json", http.StatusOK, map[string]any{
		"query": q.Get("q"), "number_of_results": 0, "results": results, "answers": []any{},
		"corrections": []any{}, "infoboxes": []any{}, "suggestions": []any{}, "unresponsive_engines": ur,
	})
}

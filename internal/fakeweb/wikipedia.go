package fakeweb

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Article is one page of the fake wiki.
type Article struct {
	Title       string
	Description string // the Wikidata short description; empty is null
	Extract     string // the lead, plain text
	// Disambiguation marks a disambiguation page (summary type
	// "disambiguation").
	Disambiguation bool
	// NoSummary makes the summary endpoint answer 404 for the page, as it
	// does for a page deleted between search and summary.
	NoSummary bool
}

// Wikipedia fakes a Wikipedia's REST API:
//
//	GET /w/rest.php/v1/search/page?q=…&limit=N   → {"pages": [{id, key, title, excerpt, matched_title, description, thumbnail}]}
//	GET /api/rest_v1/page/summary/{title}         → {type, title, displaytitle, pageid, extract, extract_html, description, content_urls, lang, …}
//
// Search matches query words in titles and leads; excerpts highlight them
// with <span class="searchmatch">, as CirrusSearch does. A missing q or a
// limit outside 1..100 is MediaWiki's 400 error body; an unknown title is
// the summary endpoint's 404 problem JSON; a request without a User-Agent
// is refused with 403, as Wikimedia's robot policy does.
type Wikipedia struct {
	recorder
	// URL is the wiki's base URL, e.g. http://127.0.0.1:1234.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	articles []Article
}

// NewWikipedia starts a fake wiki with articles, closed when the test ends.
func NewWikipedia(t testing.TB, articles ...Article) *Wikipedia {
	t.Helper()
	w := &Wikipedia{articles: articles}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	w.URL = w.srv.URL
	t.Cleanup(w.srv.Close)
	return w
}

// Add adds articles.
func (w *Wikipedia) Add(a ...Article) {
	w.mu.Lock()
	w.articles = append(w.articles, a...)
	w.mu.Unlock()
}

func key(title string) string { return strings.ReplaceAll(title, " ", "_") }

func (w *Wikipedia) serve(rw http.ResponseWriter, r *http.Request) {
	limited, retry := w.record(r)
	if r.UserAgent() == "" {
		rw.Header().Set("Content-Type", "text/plain")
		rw.WriteHeader(http.StatusForbidden)
		fmt.Fprint(rw, "Please set a user-agent and respect our robot policy https://w.wiki/4wJS. See also T400119.\n")
		return
	}
	if limited {
		if retry != "" {
			rw.Header().Set("Retry-After", retry)
		}
		writeJSON(rw, "application/json", http.StatusTooManyRequests, map[string]any{
			"httpCode": 429, "httpReason": "Too Many Requests",
			"messageTranslations": map[string]string{"en": "You have made too many requests. Please wait and try again."}})
		return
	}
	if r.Method != http.MethodGet {
		rw.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	switch {
	case r.URL.Path == "/w/rest.php/v1/search/page":
		w.search(rw, r)
	case strings.HasPrefix(r.URL.Path, "/api/rest_v1/page/summary/"):
		w.summary(rw, r, strings.TrimPrefix(r.URL.Path, "/api/rest_v1/page/summary/"))
	default:
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.WriteHeader(http.StatusNotFound)
		fmt.Fprint(rw, "<!DOCTYPE html><html><head><title>Not Found</title></head><body><h1>Not Found</h1></body></html>")
	}
}

func restError(rw http.ResponseWriter, status int, reason, msg string) {
	writeJSON(rw, "application/json", status, map[string]any{
		"messageTranslations": map[string]string{"en": msg}, "httpCode": status, "httpReason": reason})
}

func (w *Wikipedia) search(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	limit, ok := atoiOr(r.URL.Query().Get("limit"), 10)
	switch {
	case q == "":
		restError(rw, http.StatusBadRequest, "Bad Request", `Parameter "q" is required.`)
		return
	case !ok || limit < 1 || limit > 100:
		restError(rw, http.StatusBadRequest, "Bad Request", `Invalid value for parameter "limit".`)
		return
	}
	w.mu.Lock()
	arts := slices.Clone(w.articles)
	w.mu.Unlock()
	type hit struct {
		i, score int
	}
	var hits []hit
	for i, a := range arts {
		if s := 2*score(q, a.Title) + score(q, a.Extract); s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	pages := []map[string]any{}
	for _, h := range hits[:min(len(hits), limit)] {
		a := arts[h.i]
		var desc any
		if a.Description != "" {
			desc = a.Description
		}
		pages = append(pages, map[string]any{
			"id": 1000 + h.i, "key": key(a.Title), "title": a.Title, "excerpt": excerpt(q, a.Extract),
			"matched_title": nil, "description": desc, "thumbnail": nil,
		})
	}
	writeJSON(rw, "application/json", http.StatusOK, map[string]any{"pages": pages})
}

// excerpt highlights the query's words in the first words of text.
func excerpt(q, text string) string {
	ws := strings.Fields(text)
	ws = ws[:min(len(ws), 25)]
	qs := words(q)
	for i, w := range ws {
		lw := strings.ToLower(strings.Trim(w, ".,;:()"))
		if slices.Contains(qs, lw) {
			ws[i] = `<span class="searchmatch">` + w + `</span>`
		}
	}
	return strings.Join(ws, " ")
}

func (w *Wikipedia) summary(rw http.ResponseWriter, r *http.Request, raw string) {
	title, err := url.PathUnescape(raw)
	if err != nil {
		title = raw
	}
	w.mu.Lock()
	var found *Article
	for i := range w.articles {
		if key(w.articles[i].Title) == key(title) {
			a := w.articles[i]
			found = &a
		}
	}
	w.mu.Unlock()
	if found == nil || found.NoSummary {
		writeJSON(rw, "application/problem+json", http.StatusNotFound, map[string]any{
			"type": "https://mediawiki.org/wiki/HyperSwitch/errors/not_found", "title": "Not found.", "method": "get",
			"detail": "Page or revision not found.", "uri": "/" + r.Host + "/v1/page/summary/" + raw})
		return
	}
	typ := "standard"
	if found.Disambiguation {
		typ = "disambiguation"
	}
	pageURL := "https://en.wikipedia.org/wiki/" + url.PathEscape(key(found.Title))
	writeJSON(rw, "application/json; charset=utf-8; profile=\"https://www.mediawiki.org/wiki/Specs/Summary/1.5.0\"", http.StatusOK, map[string]any{
		"type": typ, "title": key(found.Title), "displaytitle": found.Title,
		"namespace": map[string]any{"id": 0, "text": ""},
		"titles":    map[string]string{"canonical": key(found.Title), "normalized": found.Title, "display": found.Title},
		"pageid":    4242, "lang": "en", "dir": "ltr", "revision": "1234567", "tid": "00000000-0000-0000-0000-000000000000",
		"timestamp": "2026-01-01T00:00:00Z", "description": found.Description, "description_source": "central",
		"content_urls": map[string]any{
			"desktop": map[string]string{"page": pageURL, "revisions": pageURL + "?action=history", "edit": pageURL + "?action=edit", "talk": pageURL},
			"mobile":  map[string]string{"page": pageURL, "revisions": pageURL, "edit": pageURL, "talk": pageURL},
		},
		"extract": found.Extract, "extract_html": "<p>" + found.Extract + "</p>",
	})
}

package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakeweb"
	"github.com/chorusai/chorus/scope"
)

var tower = fakeweb.Article{Title: "Eiffel Tower", Description: "tower in Paris, France",
	Extract: "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889."}
var gustave = fakeweb.Article{Title: "Gustave Eiffel", Description: "French civil engineer",
	Extract: "Alexandre Gustave Eiffel was a French civil engineer whose company built the Eiffel Tower."}

func run(t *testing.T, e *Endpoint, model, q string) (endpoints.Result, error) {
	t.Helper()
	return e.Infer(context.Background(), endpoints.Request{Task: Task, Model: model, Args: map[string]string{"text": q}})
}

func TestWikipedia(t *testing.T) {
	w := fakeweb.NewWikipedia(t, tower, gustave, fakeweb.Article{Title: "Lisbon tram", Extract: "Trams in Lisbon."})
	e := New(Options{WikipediaURL: w.URL, Results: 2})
	res, err := run(t, e, Wikipedia, "Eiffel Tower engineer")
	if err != nil {
		t.Fatalf("Infer: %v", err)
	}
	for _, want := range []string{`Wikipedia results for "Eiffel Tower engineer":`, "1. Eiffel Tower — tower in Paris, France",
		"wrought-iron lattice tower", "source: https://en.wikipedia.org/wiki/Eiffel_Tower", "2. Gustave Eiffel — French civil engineer"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, "Lisbon") || strings.Contains(res.Text, "searchmatch") {
		t.Errorf("text has an unasked page or HTML:\n%s", res.Text)
	}
	var data answer
	if err := json.Unmarshal(res.Data, &data); err != nil || len(data.Results) != 2 || data.Source != "Wikipedia" {
		t.Errorf("data = %s (%v)", res.Data, err)
	}
	reqs := w.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want a search and 2 summaries: %+v", len(reqs), reqs)
	}
	if reqs[0].Path != "/w/rest.php/v1/search/page" || reqs[0].Query.Get("q") != "Eiffel Tower engineer" || reqs[0].Query.Get("limit") != "2" {
		t.Errorf("search request %+v", reqs[0])
	}
	if reqs[1].Path != "/api/rest_v1/page/summary/Eiffel_Tower" || reqs[0].UserAgent == "" {
		t.Errorf("summary request %+v", reqs[1])
	}
}

// A page whose summary is gone keeps the search's excerpt, without HTML.
func TestWikipediaSummaryMissing(t *testing.T) {
	a := tower
	a.NoSummary = true
	w := fakeweb.NewWikipedia(t, a)
	res, err := run(t, New(Options{WikipediaURL: w.URL}), Wikipedia, "Eiffel")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "The Eiffel Tower is a wrought-iron") || strings.Contains(res.Text, "<span") ||
		!strings.Contains(res.Text, w.URL+"/wiki/Eiffel_Tower") {
		t.Errorf("text:\n%s", res.Text)
	}
}

func TestWikipediaErrors(t *testing.T) {
	w := fakeweb.NewWikipedia(t, tower)
	e := New(Options{WikipediaURL: w.URL})

	_, err := run(t, e, Wikipedia, "quantum chromodynamics")
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), `no results for "quantum chromodynamics" on Wikipedia`) {
		t.Errorf("empty results: %v", err)
	}

	// 429 with a short Retry-After: waited out once, then it works.
	w.RateLimit(1, "1")
	var progress []string
	start := time.Now()
	res, err := e.Infer(context.Background(), endpoints.Request{Task: Task, Model: Wikipedia, Args: map[string]string{"text": "Eiffel"},
		Progress: func(p endpoints.Progress) { progress = append(progress, p.Message) }})
	if err != nil || !strings.Contains(res.Text, "Eiffel Tower") {
		t.Fatalf("after a short 429: %v", err)
	}
	if time.Since(start) < 900*time.Millisecond || len(progress) != 1 || !strings.Contains(progress[0], "rate limited") {
		t.Errorf("waited %s, progress %q", time.Since(start), progress)
	}

	// A long Retry-After is not waited: ErrRateLimited naming it.
	w.RateLimit(1, "3600")
	_, err = run(t, e, Wikipedia, "Eiffel")
	var he *endpoints.HTTPError
	if !errors.Is(err, endpoints.ErrRateLimited) || !errors.As(err, &he) || he.Status != 429 || !strings.Contains(err.Error(), "retry after 1h0m0s") {
		t.Errorf("long 429: %v", err)
	}

	// A Retry-After too large for a time.Duration is capped at a day, not
	// multiplied unchecked: 9223372037 s wraps to a negative wait (retried
	// at once), 99999999999 s to 246 years that the message would name.
	for v, want := range map[string]string{"9223372037": "retry after 24h0m0s", "99999999999": "retry after 24h0m0s"} {
		w.RateLimit(1, v)
		before := len(w.Requests())
		_, err = run(t, e, Wikipedia, "Eiffel")
		if n := len(w.Requests()) - before; !errors.Is(err, endpoints.ErrRateLimited) || n != 1 || !strings.Contains(err.Error(), want) {
			t.Errorf("Retry-After: %s: %v after %d requests, want ErrRateLimited naming %q after 1", v, err, n, want)
		}
	}

	// A wrong URL: 404 names the setting.
	bad := New(Options{WikipediaURL: w.URL + "/nowhere"})
	if _, err := run(t, bad, Wikipedia, "Eiffel"); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "retrieval.wikipedia_url") {
		t.Errorf("404: %v", err)
	}
	// Nothing listening.
	gone := New(Options{WikipediaURL: "http://127.0.0.1:1"})
	if _, err := run(t, gone, Wikipedia, "Eiffel"); !errors.Is(err, endpoints.ErrUnreachable) {
		t.Errorf("unreachable: %v", err)
	}
	// A missing query is the plan's fault.
	if _, err := run(t, e, Wikipedia, " "); !errors.Is(err, endpoints.ErrBadInput) {
		t.Errorf("empty query: %v", err)
	}
}

func TestSearxNG(t *testing.T) {
	s := fakeweb.NewSearxNG(t,
		fakeweb.Page{URL: "https://example.org/tram", Title: "Lisbon tram 28", Content: "Tram 28 crosses the <b>Alfama</b> district of Lisbon."},
		fakeweb.Page{URL: "https://example.org/bridge", Title: "25 de Abril Bridge", Content: "A suspension bridge in Lisbon."},
		fakeweb.Page{URL: "https://example.org/porto", Title: "Porto", Content: "A city in the north."})
	s.Unresponsive("google")
	e := New(Options{SearxNGURL: s.URL, Language: "pt", Results: 5})
	res, err := run(t, e, SearxNG, "Lisbon")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`SearxNG results for "Lisbon":`, "1. Lisbon tram 28", "Tram 28 crosses the Alfama district", "source: https://example.org/tram", "2. 25 de Abril Bridge"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, "Porto") {
		t.Errorf("unmatched page in:\n%s", res.Text)
	}
	r := s.Requests()[0]
	if r.Path != "/search" || r.Query.Get("format") != "json" || r.Query.Get("q") != "Lisbon" || r.Query.Get("language") != "pt" {
		t.Errorf("request %+v", r)
	}

	_, err = run(t, e, SearxNG, "Reykjavik")
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), `no results for "Reykjavik" on SearxNG`) {
		t.Errorf("empty: %v", err)
	}
	s.RateLimit(1, "")
	if _, err := run(t, e, SearxNG, "Lisbon"); !errors.Is(err, endpoints.ErrRateLimited) {
		t.Errorf("429 without Retry-After: %v", err)
	}
	s.DisableJSON()
	if _, err := run(t, e, SearxNG, "Lisbon"); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "search.formats") {
		t.Errorf("json off: %v", err)
	}
}

func TestCheckAndLocality(t *testing.T) {
	ctx := context.Background()
	e := New(Options{WikipediaURL: DefaultWikipediaURL})
	if err := e.Check(ctx, Task, Wikipedia); err != nil {
		t.Errorf("wikipedia: %v", err)
	}
	if err := e.Check(ctx, Task, SearxNG); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "retrieval.searxng_url") {
		t.Errorf("searxng unset: %v", err)
	}
	if err := e.Check(ctx, "summarization", Wikipedia); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("other task: %v", err)
	}
	for u, local := range map[string]bool{
		"http://localhost:8888": true, "http://127.0.0.1:8080": true, "http://192.168.1.20": true, "http://[::1]:8888": true,
		"http://10.0.0.5": true, "https://searx.example.org": false, "http://8.8.8.8": false, "http://localhost.evil.com": false,
	} {
		if got := New(Options{SearxNGURL: u}).Remote(Task, SearxNG) == ""; got != local {
			t.Errorf("Remote(%s) = %q, want local %v", u, New(Options{SearxNGURL: u}).Remote(Task, SearxNG), local)
		}
	}
	if New(Options{WikipediaURL: "http://127.0.0.1:1"}).Remote(Task, Wikipedia) == "" {
		t.Error("Wikipedia is never local")
	}
	if got := New(Options{WikipediaURL: "https://en.wikipedia.org", Language: "de"}).wiki; got != "https://de.wikipedia.org" {
		t.Errorf("language: %s", got)
	}
}

// A redirect to another host is not followed: the configured API is
// trusted, where it points is not.
func TestRedirectElsewhere(t *testing.T) {
	other := fakeweb.NewWikipedia(t, tower)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	})
	srv := newServer(t, mux)
	_, err := run(t, New(Options{WikipediaURL: srv}), Wikipedia, "Eiffel")
	if !errors.Is(err, scope.ErrRedirected) || !strings.Contains(err.Error(), "does not follow") || !strings.Contains(err.Error(), "retrieval.wikipedia_url") || len(other.Requests()) != 0 {
		t.Errorf("redirect: %v, %d requests elsewhere", err, len(other.Requests()))
	}
}

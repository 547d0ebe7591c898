// Package retrieval is the retrieval endpoint kind: external knowledge for
// a plan, fetched from a web API — Wikipedia's REST API by default, a
// SearxNG instance's JSON search when one is configured. Its answer is
// text (titles, snippets and source URLs) that later tasks read like any
// other result, and that the controller sees as data, never instructions.
//
// The APIs' URLs are configuration the user wrote (retrieval.wikipedia_url,
// retrieval.searxng_url), not addresses a plan supplied: the plan supplies
// only the query, sent as a query parameter.
package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Task is the skill this kind runs.
const Task = "retrieval"

// The model ids the catalog lists for the two sources.
const (
	Wikipedia = "wikipedia/rest-api"
	SearxNG   = "searxng/json-api"
)

// Defaults.
const (
	DefaultWikipediaURL = "https://en.wikipedia.org"
	DefaultResults      = 3
	// MaxResults bounds retrieval.results: more text than this drowns the
	// tasks that read it.
	MaxResults = 10
	// maxBody bounds every answer read: a search page or a summary is a
	// few KB; a SearxNG page with many engines some tens.
	maxBody = 2 << 20
	// requestTimeout bounds each HTTP request on top of the task's
	// deadline.
	requestTimeout = 20 * time.Second
	// maxRetryAfter is the longest Retry-After waited before one retry;
	// a longer one fails the attempt with ErrRateLimited at once.
	maxRetryAfter = 10 * time.Second
	// snippetRunes bounds each result's text.
	snippetRunes = 600
	userAgent    = "chorus (https://github.com/chorusai/chorus; knowledge retrieval)"
)

// Options configure the endpoint.
type Options struct {
	// WikipediaURL is the wiki's base URL (https://en.wikipedia.org); empty
	// disables Wikipedia.
	WikipediaURL string
	// SearxNGURL is a SearxNG instance's base URL with the JSON format
	// enabled (search.formats in its settings.yml); empty disables it.
	SearxNGURL string
	// Results is how many results to return (default 3, at most 10).
	Results int
	// Language is a language code ("de"): Wikipedia's subdomain when
	// WikipediaURL is a *.wikipedia.org address, SearxNG's language
	// parameter. Empty keeps the URL's and the instance's defaults.
	Language string
	// HTTPClient is the client; nil uses a client with a 20 s timeout. Each
	// request is bounded by the task's context and requestTimeout, and
	// each answer to 2 MB.
	HTTPClient *http.Client
}

// Endpoint runs the retrieval skill.
type Endpoint struct {
	wiki, searx string
	results     int
	lang        string
	client      *http.Client
}

// New returns a retrieval endpoint.
func New(o Options) *Endpoint {
	e := &Endpoint{wiki: strings.TrimRight(o.WikipediaURL, "/"), searx: strings.TrimRight(o.SearxNGURL, "/"), results: o.Results, lang: strings.TrimSpace(o.Language)}
	if e.results <= 0 {
		e.results = DefaultResults
	}
	e.results = min(e.results, MaxResults)
	if e.wiki != "" && e.lang != "" {
		e.wiki = withLanguage(e.wiki, e.lang)
	}
	base := o.HTTPClient
	if base == nil {
		base = &http.Client{Timeout: requestTimeout}
	}
	// The configured origins are trusted, with whatever credential their
	// URL carries; a redirect elsewhere is not followed, so an answer
	// cannot send Chorus, or the credential, to another address.
	e.client = scope.Credentialed(base)
	return e
}

// withLanguage points a *.wikipedia.org URL at the language's wiki.
func withLanguage(base, lang string) string {
	u, err := url.Parse(base)
	if err != nil || !strings.HasSuffix(strings.ToLower(u.Hostname()), ".wikipedia.org") {
		return base
	}
	u.Host = strings.ToLower(lang) + ".wikipedia.org"
	return u.String()
}

// Kind implements endpoints.Endpoint.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointRetrieval }

// Check implements endpoints.Endpoint: offline, it says whether the source
// is configured.
func (e *Endpoint) Check(_ context.Context, task, model string) error {
	if task != Task {
		return endpoints.Explain(fmt.Sprintf("the retrieval endpoint runs only the retrieval skill, not %s", task), endpoints.ErrUnsupported)
	}
	switch model {
	case Wikipedia:
		if e.wiki == "" {
			return endpoints.Explain("Wikipedia retrieval is off (retrieval.wikipedia_url is empty) — set it, e.g. to https://en.wikipedia.org", endpoints.ErrUnavailable)
		}
	case SearxNG:
		if e.searx == "" {
			return endpoints.Explain("no SearxNG instance is configured — set retrieval.searxng_url to one with the JSON format enabled (search.formats: [html, json] in its settings.yml)", endpoints.ErrUnavailable)
		}
	default:
		return endpoints.Explain(fmt.Sprintf("the retrieval endpoint has no source %q (want %s or %s)", model, Wikipedia, SearxNG), endpoints.ErrUnavailable)
	}
	return nil
}

// Remote implements endpoints.Locator: a SearxNG instance on this
// machine or a private network keeps the query there, so inference_mode
// local and the local-only constraint may use it; Wikipedia never does.
// Only the URL is judged (endpoints.IsLocalHost), never what a name
// resolves to.
func (e *Endpoint) Remote(_, model string) string {
	switch {
	case model == Wikipedia:
		return "Wikipedia is a web service"
	case model != SearxNG:
		return fmt.Sprintf("%s is not a retrieval source", model)
	case e.searx == "":
		return "no SearxNG instance is configured"
	}
	u, err := url.Parse(e.searx)
	if err != nil || !endpoints.IsLocalHost(u.Hostname()) {
		return fmt.Sprintf("the SearxNG instance %s is not on this machine or a private network", e.searx)
	}
	return ""
}

// Hit is one retrieved document.
type Hit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// answer is the structured result (Result.Data).
type answer struct {
	Query   string `json:"query"`
	Source  string `json:"source"`
	Results []Hit  `json:"results"`
}

// Infer implements endpoints.Endpoint.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	if err := e.Check(ctx, req.Task, req.Model); err != nil {
		return endpoints.Result{}, err
	}
	q, err := req.Arg("text", "what to look up")
	if err != nil {
		return endpoints.Result{}, err
	}
	var (
		hits   []Hit
		source string
	)
	if req.Model == Wikipedia {
		source = "Wikipedia"
		hits, err = e.wikipedia(ctx, req, q)
	} else {
		source = "SearxNG"
		hits, err = e.searxng(ctx, req, q)
	}
	if err != nil {
		return endpoints.Result{}, err
	}
	if len(hits) == 0 {
		return endpoints.Result{}, endpoints.Explain(fmt.Sprintf("no results for %q on %s — try other words", q, source), endpoints.ErrUnavailable)
	}
	data, _ := json.Marshal(answer{Query: q, Source: source, Results: hits})
	return endpoints.Result{Text: render(source, q, hits), Data: data}, nil
}

// render writes the hits as the text later tasks read.
func render(source, q string, hits []Hit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s results for %q:\n", source, q)
	for i, h := range hits {
		fmt.Fprintf(&b, "%d. %s\n", i+1, h.Title)
		if h.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", h.Snippet)
		}
		if h.URL != "" {
			fmt.Fprintf(&b, "   source: %s\n", h.URL)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// wikiPage is one entry of /w/rest.php/v1/search/page.
type wikiPage struct {
	ID          int     `json:"id"`
	Key         string  `json:"key"`
	Title       string  `json:"title"`
	Excerpt     string  `json:"excerpt"`
	Description *string `json:"description"`
}

// wikiSummary is /api/rest_v1/page/summary/{title}.
type wikiSummary struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Extract     string `json:"extract"`
	Description string `json:"description"`
	ContentURLs struct {
		Desktop struct {
			Page string `json:"page"`
		} `json:"desktop"`
	} `json:"content_urls"`
}

// wikipedia searches pages (MediaWiki's core REST search), then reads the
// lead of each from the page summary endpoint; a page whose summary cannot
// be read keeps the search's excerpt.
func (e *Endpoint) wikipedia(ctx context.Context, req endpoints.Request, q string) ([]Hit, error) {
	u := e.wiki + "/w/rest.php/v1/search/page?" + url.Values{"q": {q}, "limit": {strconv.Itoa(e.results)}}.Encode()
	var found struct {
		Pages []wikiPage `json:"pages"`
	}
	if err := e.getJSON(ctx, req, "Wikipedia", u, &found); err != nil {
		return nil, err
	}
	var hits []Hit
	for _, p := range found.Pages {
		if len(hits) == e.results {
			break
		}
		key := p.Key
		if key == "" {
			key = strings.ReplaceAll(p.Title, " ", "_")
		}
		h := Hit{Title: p.Title, URL: e.wiki + "/wiki/" + url.PathEscape(key), Snippet: clip(stripTags(p.Excerpt))}
		if p.Description != nil && *p.Description != "" {
			h.Title += " — " + *p.Description
		}
		var s wikiSummary
		err := e.getJSON(ctx, req, "Wikipedia", e.wiki+"/api/rest_v1/page/summary/"+url.PathEscape(key), &s)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A summary that cannot be read (gone, rate limited) leaves the
		// search's excerpt: the search itself answered.
		if err == nil && strings.TrimSpace(s.Extract) != "" {
			h.Snippet = clip(s.Extract)
			if s.ContentURLs.Desktop.Page != "" {
				h.URL = s.ContentURLs.Desktop.Page
			}
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// searxResult is one entry of SearxNG's results list.
type searxResult struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// searxng asks the instance's /search with format=json.
func (e *Endpoint) searxng(ctx context.Context, req endpoints.Request, q string) ([]Hit, error) {
	v := url.Values{"q": {q}, "format": {"json"}}
	if e.lang != "" {
		v.Set("language", e.lang)
	}
	var found struct {
		Results []searxResult `json:"results"`
	}
	if err := e.getJSON(ctx, req, "SearxNG", e.searx+"/search?"+v.Encode(), &found); err != nil {
		return nil, err
	}
	var hits []Hit
	for _, r := range found.Results {
		if len(hits) == e.results {
			break
		}
		if strings.TrimSpace(r.Title) == "" && strings.TrimSpace(r.Content) == "" {
			continue
		}
		hits = append(hits, Hit{Title: strings.TrimSpace(r.Title), URL: r.URL, Snippet: clip(stripTags(r.Content))})
	}
	return hits, nil
}

// getJSON GETs u and decodes its JSON answer into v, bounded in size and
// time; a 429 is waited out once when its Retry-After is short.
func (e *Endpoint) getJSON(ctx context.Context, req endpoints.Request, source, u string, v any) error {
	for attempt := 0; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		status, hdr, body, err := e.get(rctx, u)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if re := (*scope.RedirectError)(nil); errors.As(err, &re) {
				return endpoints.Explain(fmt.Sprintf("%s at %s: %v — point retrieval.%s at the address that answers", source, hostOf(u), re, configKey(source)), endpoints.ErrUnavailable, err)
			}
			return endpoints.Explain(fmt.Sprintf("%s is not reachable at %s: %v — check the network, or retrieval.%s", source, hostOf(u), err, configKey(source)), endpoints.ErrUnreachable, err)
		}
		switch {
		case status == http.StatusOK:
			if err := json.Unmarshal(body, v); err != nil {
				return &endpoints.HTTPError{Kind: skills.EndpointRetrieval, Model: req.Model, Status: status, Err: endpoints.ErrUnavailable,
					Message: fmt.Sprintf("%s answered something other than its JSON (%v) — is retrieval.%s the right address?", source, err, configKey(source))}
			}
			return nil
		case status == http.StatusTooManyRequests:
			wait, ok := httpwire.RetryAfter(hdr.Get("Retry-After"), time.Now())
			if attempt == 0 && ok && wait <= maxRetryAfter {
				if req.Progress != nil {
					req.Progress(endpoints.Progress{Message: fmt.Sprintf("%s rate limited; retrying in %s", source, wait.Round(time.Second))})
				}
				if err := httpwire.Sleep(ctx, wait); err != nil {
					return err
				}
				continue
			}
			msg := fmt.Sprintf("%s is rate limiting Chorus (HTTP 429) — try again later", source)
			if ok {
				msg = fmt.Sprintf("%s is rate limiting Chorus (HTTP 429, retry after %s) — try again later", source, wait.Round(time.Second))
			}
			return &endpoints.HTTPError{Kind: skills.EndpointRetrieval, Model: req.Model, Status: status, Err: endpoints.ErrRateLimited, Message: msg}
		case status == http.StatusNotFound:
			return &endpoints.HTTPError{Kind: skills.EndpointRetrieval, Model: req.Model, Status: status, Err: endpoints.ErrUnavailable,
				Message: fmt.Sprintf("%s answered 404 for %s — check retrieval.%s", source, pathOf(u), configKey(source))}
		case status == http.StatusForbidden && source == "SearxNG":
			return &endpoints.HTTPError{Kind: skills.EndpointRetrieval, Model: req.Model, Status: status, Err: endpoints.ErrUnavailable,
				Message: "the SearxNG instance refused the JSON format (HTTP 403) — enable it: search.formats: [html, json] in its settings.yml"}
		default:
			return &endpoints.HTTPError{Kind: skills.EndpointRetrieval, Model: req.Model, Status: status, Err: endpoints.ErrUnavailable,
				Message: fmt.Sprintf("%s failed (HTTP %d)%s", source, status, said(body))}
		}
	}
}

// get does one bounded GET.
func (e *Endpoint) get(ctx context.Context, u string) (int, http.Header, []byte, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	r.Header.Set("User-Agent", userAgent)
	r.Header.Set("Accept", "application/json")
	resp, err := e.client.Do(r)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := httpwire.ReadBody(resp, maxBody)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, body, nil
}

func configKey(source string) string {
	if source == "SearxNG" {
		return "searxng_url"
	}
	return "wikipedia_url"
}

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Scheme + "://" + p.Host
	}
	return u
}

func pathOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}

// said quotes a short error body: a JSON "detail"/"title", or the text.
func said(body []byte) string {
	var e struct {
		Detail string `json:"detail"`
		Title  string `json:"title"`
	}
	s := ""
	if json.Unmarshal(body, &e) == nil {
		s = strings.TrimSpace(e.Detail + " " + e.Title)
	}
	if s == "" {
		s = strings.TrimSpace(stripTags(string(body)))
	}
	if s == "" {
		return ""
	}
	return ": " + clip(s)
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// stripTags turns an HTML snippet (Wikipedia's searchmatch spans) into
// plain text.
func stripTags(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(s, ""))), " ")
}

// clip bounds a snippet at a character boundary.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= snippetRunes {
		return s
	}
	return strings.TrimSpace(string(r[:snippetRunes])) + "…"
}

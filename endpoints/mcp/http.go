package mcp

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// httpClient is an HTTP server's client: the configured headers and key
// on every request, every request on the server's own origin (a key, a
// header or a message never goes elsewhere, whatever the server's
// redirects or endpoint events say), JSON answers bounded like stdio lines
// (event streams are bounded per event by the SDK), and the server's
// refusal of the key remembered for the message.
type httpClient struct {
	client  *http.Client
	mu      sync.Mutex
	refusal *httpRefusal
	// status is the last HTTP status the server answered with.
	status int
}

// httpRefusal is a 401 or 403 from the server.
type httpRefusal struct {
	status int
	msg    string
}

func (e *httpRefusal) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.msg) }

// explain names the fix: the key, and where it comes from.
func (e *httpRefusal) explain(cfg Server) error {
	fix := fmt.Sprintf("set %s.key_env (or a header in %s.headers) to a key the server accepts", cfg.key(), cfg.key())
	switch {
	case cfg.Key == "" && cfg.KeyFrom != "":
		fix = "set " + cfg.KeyFrom
	case cfg.KeyFrom != "":
		fix = "check the key in " + cfg.KeyFrom
	}
	msg := ""
	if e.msg != "" {
		msg = ": " + e.msg
	}
	return failf(endpoints.ErrUnauthorized, "the MCP server %s refused the request (HTTP %d%s) — %s", cfg.Name, e.status, msg, fix)
}

func newHTTPClient(s *server, ended *endReason) *httpClient {
	h := &httpClient{}
	base := s.opts.HTTPClient.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	origin, _ := url.Parse(s.cfg.URL)
	// scope.Credentialed: a redirect is followed only for a GET on the
	// server's own origin, so neither the key nor a message (a POST, never
	// sent twice) follows one elsewhere.
	h.client = scope.Credentialed(&http.Client{
		Transport: &httpTransport{base: base, cfg: s.cfg, origin: origin, max: int64(s.opts.MaxMessage), h: h, ended: ended},
	})
	refuse := h.client.CheckRedirect
	h.client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		err := refuse(req, via)
		if err != nil {
			ended.set(err) // the SDK's own wrapping may lose it
		}
		return err
	}
	return h
}

// offOrigin is a request the server sent Chorus to on another origin: an
// HTTP+SSE server names in its endpoint event where the client posts its
// messages, and one that names another host or port gets nothing there.
type offOrigin struct{ to *url.URL }

func (e *offOrigin) Error() string {
	return fmt.Sprintf("the server sent Chorus to %s, another origin — Chorus sends its messages, key and headers only to the configured server", text.RedactURL(e.to.String()))
}

// answered4xx reports whether the server answered the last request with a
// client error: a server that does not speak streamable HTTP (an older
// HTTP+SSE one answers a POST with 404, 405 or 400).
func (h *httpClient) answered4xx() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status >= 400 && h.status < 500
}

func (h *httpClient) refused() *httpRefusal {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refusal
}

type httpTransport struct {
	base   http.RoundTripper
	cfg    Server
	origin *url.URL
	max    int64
	h      *httpClient
	ended  *endReason
}

func (t *httpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !scope.SameOrigin(req.URL, t.origin) {
		if req.Body != nil {
			req.Body.Close()
		}
		err := &offOrigin{to: req.URL}
		t.ended.set(err) // the SDK's own wrapping may lose it
		return nil, err
	}
	req = req.Clone(req.Context())
	for k, v := range t.cfg.Headers {
		req.Header.Set(k, v)
	}
	if t.cfg.Key != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+t.cfg.Key)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.h.mu.Lock()
	t.h.status = resp.StatusCode
	t.h.mu.Unlock()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		resp.Body.Close()
		r := &httpRefusal{status: resp.StatusCode, msg: text.OneLine(text.Clean(errorText(b)), 200)}
		t.h.mu.Lock()
		t.h.refusal = r
		t.h.mu.Unlock()
		return nil, r
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/event-stream" {
		if resp.ContentLength > t.max {
			resp.Body.Close()
			err := tooLarge(t.max)
			t.ended.set(err)
			return nil, err
		}
		resp.Body = &boundedBody{ReadCloser: resp.Body, max: t.max, left: t.max, ended: t.ended}
	}
	return resp, nil
}

func tooLarge(limit int64) error {
	return fmt.Errorf("it sent a message over %s (the limit for one message) — the call was stopped", skills.HumanBytes(limit))
}

// boundedBody fails a body once it passes the bound.
type boundedBody struct {
	io.ReadCloser
	max, left int64
	ended     *endReason
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if int64(n) > b.left {
		err := tooLarge(b.max)
		b.ended.set(err)
		return 0, err
	}
	b.left -= int64(n)
	return n, err
}

// errorText is the message of an error body: JSON's error or message
// field, or the text itself.
func errorText(b []byte) string {
	s := strings.TrimSpace(string(b))
	for _, k := range []string{`"error_description":"`, `"message":"`, `"error":"`} {
		if i := strings.Index(s, k); i >= 0 {
			rest := s[i+len(k):]
			if j := strings.Index(rest, `"`); j >= 0 {
				return rest[:j]
			}
		}
	}
	return s
}

// hostOf is a URL's host name.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Hostname()
}

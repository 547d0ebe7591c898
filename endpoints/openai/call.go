package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// maxErrorBody bounds an error answer read for its message.
const maxErrorBody = 64 << 10

// maxJSONAnswer bounds a JSON answer (or MaxBodyBytes, when lower). It is
// streamed (endpoints.Spool.ReadJSON): its long strings — images as
// base64, the largest part — go to temporary files as they arrive, so
// memory holds its structure, not its size.
const maxJSONAnswer = 256 << 20

// maxJSONText bounds a string of a JSON answer read as words (a
// transcript, a reply).
const maxJSONText = 16 << 20

// downloadTimeout bounds fetching one result file by URL.
const downloadTimeout = 5 * time.Minute

func (e *Endpoint) authorize(r *http.Request, s *Server) {
	r.Header.Set("User-Agent", "chorus")
	if s.Key != "" {
		r.Header.Set("Authorization", "Bearer "+s.Key)
	}
}

func (e *Endpoint) unreachable(s *Server, err error) error {
	if errors.Is(err, scope.ErrRedirected) {
		var re *scope.RedirectError
		errors.As(err, &re)
		return endpoints.Explain(fmt.Sprintf("%s at %s: %v — point openai[%d].url at the address that answers", s.label(), s.URL, re, s.Index), endpoints.ErrUnavailable, err)
	}
	return endpoints.MarkHostDown(s.URL, err, endpoints.Explain(fmt.Sprintf("%s at %s is not reachable — start the server or fix openai[%d].url (%v)", s.label(), s.URL, s.Index, err),
		endpoints.ErrUnreachable, err))
}

// apiError is OpenAI's error body, {"error":{"message","type","code"}};
// FastAPI servers (speaches, Kokoro-FastAPI) answer {"detail": …} and some
// servers put a plain string in "error".
type apiError struct {
	Error  json.RawMessage `json:"error"`
	Detail json.RawMessage `json:"detail"`
}

// errorMessage reads the message of an error body, or a snippet of it.
func errorMessage(body []byte) string {
	var ae apiError
	if json.Unmarshal(body, &ae) == nil {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		var s string
		switch {
		case json.Unmarshal(ae.Error, &obj) == nil && obj.Message != "":
			if obj.Type != "" {
				return obj.Message + " (" + obj.Type + ")"
			}
			return obj.Message
		case json.Unmarshal(ae.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(ae.Detail, &s) == nil && s != "":
			return s
		case len(ae.Detail) > 0:
			return hfapi.Snippet(ae.Detail)
		}
	}
	return hfapi.Snippet(bytes.TrimSpace(body))
}

// statusError classifies a non-success answer of s to route for model,
// with a message that names the fix.
func (e *Endpoint) statusError(s *Server, model, route string, resp *http.Response, body []byte) error {
	msg := errorMessage(body)
	he := &endpoints.HTTPError{Kind: skills.EndpointOpenAI, Model: model, Provider: s.name(), Status: resp.StatusCode}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		he.Err = endpoints.ErrUnauthorized
		fix := fmt.Sprintf("set openai[%d].key, or set openai[%d].key_env to the variable holding it", s.Index, s.Index)
		if s.KeyVar != "" {
			fix = fmt.Sprintf("set openai[%d].key, or export %s, or set openai[%d].key_env to the variable holding it", s.Index, s.KeyVar, s.Index)
		}
		switch {
		case s.KeyEnv != "" && s.Key == "":
			fix = fmt.Sprintf("the variable %s that openai[%d].key_env names is empty — export it", s.KeyEnv, s.Index)
		case s.KeyEnv != "":
			fix = fmt.Sprintf("the key in %s (openai[%d].key_env) was refused — check it", s.KeyEnv, s.Index)
		case s.Key != "":
			fix = fmt.Sprintf("the key was refused — check openai[%d].key", s.Index)
		}
		he.Message = fmt.Sprintf("%s at %s refused %s: %s — %s", s.label(), s.URL, route, msg, fix)
	case code == http.StatusNotFound:
		he.Err = endpoints.ErrUnavailable
		he.Message = fmt.Sprintf("%s at %s has no %s or no model %s: %s — load the model, or remove the task from openai[%d]", s.label(), s.URL, route, model, msg, s.Index)
	case code == http.StatusTooManyRequests:
		he.Err = endpoints.ErrRateLimited
		he.Message = fmt.Sprintf("%s at %s is rate limiting %s: %s — wait a little or add capacity", s.label(), s.URL, route, msg)
	case code >= 500:
		he.Err = endpoints.ErrUnavailable
		he.Message = fmt.Sprintf("%s at %s failed on %s: %s — see the server's log", s.label(), s.URL, route, msg)
	default:
		// 400 and 422: this model or server does not take the request
		// (no vision, no such voice); another candidate may.
		he.Err = endpoints.ErrUnavailable
		he.Message = fmt.Sprintf("%s at %s did not accept %s: %s", s.label(), s.URL, route, msg)
	}
	return he
}

// post sends body to route on s and returns the successful answer, its
// body not yet read (the caller closes it); failures are classified.
func (e *Endpoint) post(ctx context.Context, s *Server, model, route, contentType string, body []byte) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+route, bytes.NewReader(body))
	if err != nil {
		return nil, endpoints.Explain(fmt.Sprintf("%s has an unusable URL %q: %v — fix openai[%d].url", s.label(), s.URL, err, s.Index), endpoints.ErrUnavailable)
	}
	e.authorize(r, s)
	r.Header.Set("Content-Type", contentType)
	resp, err := e.client.Do(r)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s %s on %s: %w", skills.EndpointOpenAI, model, s.label(), ctx.Err())
		}
		return nil, e.unreachable(s, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := httpwire.ReadBody(resp, maxErrorBody)
		return nil, e.statusError(s, model, "POST "+route, resp, b)
	}
	return resp, nil
}

// postJSON posts v as JSON and reads the JSON answer. The caller removes
// its spooled strings (SpooledJSON.Remove).
func (e *Endpoint) postJSON(ctx context.Context, s *Server, model, route string, v any) (endpoints.SpooledJSON, error) {
	resp, err := e.post(ctx, s, model, route, "application/json", hfapi.EncodeJSON(v))
	if err != nil {
		return endpoints.SpooledJSON{}, err
	}
	defer resp.Body.Close()
	return e.readJSON(s, model, route, resp)
}

// readJSON reads a successful JSON answer, streamed: its long strings
// spooled, bounded by maxJSONAnswer (or MaxBodyBytes when lower) as it
// arrives. The caller removes its spooled strings.
func (e *Endpoint) readJSON(s *Server, model, route string, resp *http.Response) (endpoints.SpooledJSON, error) {
	spool := e.spool
	spool.Max = min(maxJSONAnswer, e.spool.Limit())
	body, err := httpwire.Body(resp, spool.Limit())
	var j endpoints.SpooledJSON
	if err == nil {
		j, err = spool.ReadJSON(body, 0)
	}
	switch {
	case errors.Is(err, endpoints.ErrStore):
		return endpoints.SpooledJSON{}, err
	case err != nil:
		return endpoints.SpooledJSON{}, &endpoints.HTTPError{Kind: skills.EndpointOpenAI, Model: model, Provider: s.name(), Status: resp.StatusCode, Err: errors.Join(endpoints.ErrUnavailable, err),
			Message: fmt.Sprintf("%s answered POST %s unreadably: %v", s.label(), route, err)}
	}
	j.Data = bytes.TrimSpace(j.Data)
	if !json.Valid(j.Data) {
		j.Remove()
		return endpoints.SpooledJSON{}, e.malformed(s, model, route, "JSON", j.Data)
	}
	return j, nil
}

// malformed is the error for an answer in a shape Chorus does not know.
func (e *Endpoint) malformed(s *Server, model, route, want string, data []byte) error {
	return &endpoints.HTTPError{Kind: skills.EndpointOpenAI, Model: model, Provider: s.name(), Status: http.StatusOK, Err: endpoints.ErrUnavailable,
		Message: fmt.Sprintf("%s answered POST %s in an unexpected shape (want %s): %s", s.label(), route, want, hfapi.Snippet(data))}
}

// fetch downloads a file the server answered with by URL. A URL on the
// server's own origin (LocalAI's /generated-images/…) is fetched like the
// server itself — the user configured it, and it is often on this
// machine; any other URL is a task result and goes through the trust rule
// for those: a public address only, checked on every redirect and where
// the connection lands, never with the key, bounded in size and time.
func (e *Endpoint) fetch(ctx context.Context, s *Server, model, u string) (endpoints.Blob, error) {
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "/") { // a path on the server itself
		u = s.URL + u
	}
	if sameOrigin(u, s.URL) {
		b, elsewhere, err := e.fetchOwn(ctx, s, model, u)
		if elsewhere == "" {
			return b, err
		}
		// Redirected off the server's origin: the target is a task
		// result like any other, fetched without the key.
		u = elsewhere
	}
	return hfapi.FetchResult(ctx, e.spool, u, hfapi.ResultFetch{Who: fmt.Sprintf("%s %s on %s", skills.EndpointOpenAI, model, s.label()),
		Transport: e.download, Timeout: downloadTimeout})
}

// fetchOwn downloads a result on the server's own origin, with the key.
// A redirect to another origin is not followed (the key would go with
// it): its target comes back as elsewhere, for the caller to fetch as a
// task result.
func (e *Endpoint) fetchOwn(ctx context.Context, s *Server, model, u string) (b endpoints.Blob, elsewhere string, err error) {
	fail := func(format string, args ...any) (endpoints.Blob, string, error) {
		return endpoints.Blob{}, "", endpoints.Explain(fmt.Sprintf("%s %s on %s: ", skills.EndpointOpenAI, model, s.label())+fmt.Sprintf(format, args...), endpoints.ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fail("its answer names an unusable URL %s", u)
	}
	e.authorize(r, s)
	resp, err := e.client.Do(r)
	if target, ok := scope.RedirectTarget(err); ok {
		return endpoints.Blob{}, target, nil
	}
	if err != nil {
		return endpoints.Blob{}, "", e.unreachable(s, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := httpwire.ReadBody(resp, maxErrorBody)
		return endpoints.Blob{}, "", e.statusError(s, model, "GET "+u, resp, b)
	}
	b, head, err := e.spool.ReadBody(resp)
	if err != nil {
		return fail("the result at %s could not be read: %v", u, err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	b.MIME = hfapi.BlobMIME(mt, head)
	return b, "", nil
}

// sameOrigin reports whether u is on base's scheme, host and port.
func sameOrigin(u, base string) bool {
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(base)
	return err1 == nil && err2 == nil && a.Host != "" && strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

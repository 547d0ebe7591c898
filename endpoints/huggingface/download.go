package huggingface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
)

// downloadTimeout bounds fetching one result file.
const downloadTimeout = 5 * time.Minute

// maxJSONAnswer bounds a provider's JSON answer read into memory (a
// queue status, a prediction, a chat completion): files come by URL.
const maxJSONAnswer = 64 << 20

// fetchResult downloads a file a provider answered with by URL — a task
// result URL, so it goes through the trust rule for those: only a public
// address, checked again where the connection lands and on every
// redirect, never with the token, bounded in size (MaxBodyBytes) and time,
// and spooled like an answer body. A data: URL is decoded in place.
func (e *Endpoint) fetchResult(ctx context.Context, provider, model, u string) (endpoints.Blob, error) {
	fail := func(format string, args ...any) (endpoints.Blob, error) {
		msg := fmt.Sprintf("%s (%s) %s: ", endpoints.HuggingFace, provider, model) + fmt.Sprintf(format, args...)
		return endpoints.Blob{}, endpoints.Explain(msg, endpoints.ErrUnavailable)
	}
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "data:") {
		b, err := hfapi.DecodeFile([]byte(u), "", e.c.spool)
		if err != nil {
			return fail("its answer holds a file that cannot be read: %v", err)
		}
		return b, nil
	}
	sc := scope.New(scope.Options{})
	sc.AllowURL(u, scope.Result)
	if err := sc.CheckURL(u); err != nil {
		return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("%s (%s) %s: the result is at %s, which Chorus does not fetch: %v", endpoints.HuggingFace, provider, model, u, err),
			endpoints.ErrUnavailable, err)
	}
	pr, pw := io.Pipe()
	type fetched struct {
		mt  string
		err error
	}
	done := make(chan fetched, 1)
	go func() {
		mt, err := sc.Fetch(ctx, u, pw, scope.FetchOptions{MaxBytes: e.c.spool.Limit(), Timeout: downloadTimeout, Transport: e.download})
		pw.CloseWithError(err)
		done <- fetched{mt, err}
	}()
	b, head, err := e.c.spool.Copy(pr)
	pr.Close() // a spool that gave up stops the download
	f := <-done
	if err != nil || f.err != nil || len(head) == 0 {
		b.Remove()
	}
	switch {
	case ctx.Err() != nil:
		return endpoints.Blob{}, fmt.Errorf("%s (%s) %s: stopped while downloading the result: %w", endpoints.HuggingFace, provider, model, ctx.Err())
	case errors.Is(err, endpoints.ErrStore):
		return endpoints.Blob{}, fmt.Errorf("%s (%s) %s: %w", endpoints.HuggingFace, provider, model, err)
	case errors.Is(err, endpoints.ErrTooLarge) || errors.Is(f.err, scope.ErrTooLarge):
		return fail("the result at %s is larger than the %s Chorus accepts", u, httpwire.HumanSize(e.c.spool.Limit()))
	case errors.Is(f.err, scope.ErrDenied):
		return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("%s (%s) %s: the result at %s was not fetched: %v", endpoints.HuggingFace, provider, model, u, f.err),
			endpoints.ErrUnavailable, f.err)
	case f.err != nil:
		return fail("the result could not be downloaded (%v) — try again", f.err)
	case err != nil:
		return fail("the result could not be downloaded: %v", err)
	case len(head) == 0:
		return fail("the result at %s is empty", u)
	}
	mt, _, _ := mime.ParseMediaType(f.mt)
	b.MIME = hfapi.BlobMIME(mt, head)
	return b, nil
}

// callJSON makes cl under the retry rules and returns its JSON answer.
// An answer that is not JSON is ErrUnavailable naming the provider.
func (e *Endpoint) callJSON(ctx context.Context, req endpoints.Request, cl call) (json.RawMessage, error) {
	status, _, body, _, err := e.c.exchange(ctx, req, cl)
	if err != nil {
		return nil, err
	}
	data, err := body.Bytes(maxJSONAnswer)
	body.Remove()
	if err != nil {
		return nil, &endpoints.HTTPError{Kind: endpoints.HuggingFace, Model: req.Model, Provider: cl.provider, Status: status,
			Err: endpoints.ErrUnavailable, Message: fmt.Sprintf("%s answered more than Chorus reads of a JSON answer (%v)", e.c.where(cl.provider), err)}
	}
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return nil, &endpoints.HTTPError{Kind: endpoints.HuggingFace, Model: req.Model, Provider: cl.provider, Status: status,
			Err: endpoints.ErrUnavailable, Message: fmt.Sprintf("%s answered something that is not JSON: %s", e.c.where(cl.provider), hfapi.Snippet(data))}
	}
	return data, nil
}

// malformed is the error for a provider's answer in a shape Chorus does
// not know, quoting it.
func malformed(req endpoints.Request, provider, want string, data []byte) error {
	return &endpoints.HTTPError{Kind: endpoints.HuggingFace, Model: req.Model, Provider: provider, Status: 200, Err: endpoints.ErrUnavailable,
		Message: fmt.Sprintf("%s answered %s in an unexpected shape (want %s): %s — another provider or candidate may do", provider, req.Task, want, hfapi.Snippet(data))}
}

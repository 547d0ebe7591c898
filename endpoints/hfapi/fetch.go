package hfapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
)

// ResultFetch says how FetchResult downloads a result file.
type ResultFetch struct {
	// Who names the endpoint, provider and model in messages
	// ("huggingface (fal-ai) black-forest-labs/FLUX.1-schnell").
	Who string
	// Transport carries the download; nil dials public addresses only.
	// Tests point it at their fake CDN.
	Transport http.RoundTripper
	// Timeout bounds the download.
	Timeout time.Duration
}

// FetchResult downloads the file at u that a provider or server answered
// with by URL into sp. It is a task result URL, so it goes through the
// trust rule for those: only a public address, checked again where the
// connection lands and on every redirect, never with a key, bounded in
// size (sp's limit) and time. The Hugging Face providers and the
// OpenAI-compatible servers both answer files this way; this is the one
// download they share, so a refusal, a file too large or an empty one
// reads the same from either. Every failure names o.Who and the fix, and
// is endpoints.ErrUnavailable (another model may work) — but a full disk
// (endpoints.ErrStore) and a cancelled turn, which are not the model's.
func FetchResult(ctx context.Context, sp endpoints.Spool, u string, o ResultFetch) (endpoints.Blob, error) {
	fail := func(format string, args ...any) (endpoints.Blob, error) {
		return endpoints.Blob{}, endpoints.Explain(o.Who+": "+fmt.Sprintf(format, args...), endpoints.ErrUnavailable)
	}
	sc := scope.New(scope.Options{})
	sc.AllowURL(u, scope.Result)
	if err := sc.CheckURL(u); err != nil {
		return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("%s: the result is at %s, which Chorus does not fetch: %v", o.Who, u, err),
			endpoints.ErrUnavailable, err)
	}
	pr, pw := io.Pipe()
	type fetched struct {
		mt  string
		err error
	}
	done := make(chan fetched, 1)
	go func() {
		mt, err := sc.Fetch(ctx, u, pw, scope.FetchOptions{MaxBytes: sp.Limit(), Timeout: o.Timeout, Transport: o.Transport})
		pw.CloseWithError(err)
		done <- fetched{mt, err}
	}()
	b, head, err := sp.Copy(pr)
	pr.Close() // a spool that gave up stops the download
	f := <-done
	if err != nil || f.err != nil || len(head) == 0 {
		b.Remove()
	}
	switch {
	case ctx.Err() != nil:
		return endpoints.Blob{}, fmt.Errorf("%s: stopped while downloading the result: %w", o.Who, ctx.Err())
	case errors.Is(err, endpoints.ErrStore):
		return endpoints.Blob{}, fmt.Errorf("%s: %w", o.Who, err)
	case errors.Is(err, endpoints.ErrTooLarge) || errors.Is(f.err, scope.ErrTooLarge):
		return fail("the result at %s is larger than the %s Chorus accepts", u, httpwire.HumanSize(sp.Limit()))
	case errors.Is(f.err, scope.ErrDenied):
		return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("%s: the result at %s was not fetched: %v", o.Who, u, f.err),
			endpoints.ErrUnavailable, f.err)
	case f.err != nil:
		return fail("the result at %s could not be downloaded (%v) — try again", u, f.err)
	case err != nil:
		return fail("the result at %s could not be downloaded: %v", u, err)
	case len(head) == 0:
		return fail("the result at %s is empty", u)
	}
	mt, _, _ := mime.ParseMediaType(f.mt)
	b.MIME = BlobMIME(mt, head)
	return b, nil
}

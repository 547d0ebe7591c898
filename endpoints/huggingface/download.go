package huggingface

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/skills"
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
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "data:") {
		b, err := hfapi.DecodeFile([]byte(u), "", e.c.spool)
		if err != nil {
			return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("%s (%s) %s: its answer holds a file that cannot be read: %v",
				skills.EndpointHuggingFace, provider, model, err), endpoints.ErrUnavailable)
		}
		return b, nil
	}
	return hfapi.FetchResult(ctx, e.c.spool, u, hfapi.ResultFetch{Who: fmt.Sprintf("%s (%s) %s", skills.EndpointHuggingFace, provider, model),
		Transport: e.download, Timeout: downloadTimeout})
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
		return nil, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: cl.provider, Status: status,
			Err: endpoints.ErrUnavailable, Message: fmt.Sprintf("%s answered more than Chorus reads of a JSON answer (%v)", e.c.where(cl.provider), err)}
	}
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return nil, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: cl.provider, Status: status,
			Err: endpoints.ErrUnavailable, Message: fmt.Sprintf("%s answered something that is not JSON: %s", e.c.where(cl.provider), hfapi.Snippet(data))}
	}
	return data, nil
}

// malformed is the error for a provider's answer in a shape Chorus does
// not know, quoting it.
func malformed(req endpoints.Request, provider, want string, data []byte) error {
	return &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: provider, Status: 200, Err: endpoints.ErrUnavailable,
		Message: fmt.Sprintf("%s answered %s in an unexpected shape (want %s): %s — another provider or candidate may do", provider, req.Task, want, hfapi.Snippet(data))}
}

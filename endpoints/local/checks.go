package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// cached runs probe at most once per TTL for key and returns its answer.
func (e *Endpoint) cached(ctx context.Context, key string, probe func(context.Context) error) error {
	_, err := e.probes.Do(ctx, key, func(pctx context.Context) (struct{}, error) { return struct{}{}, probe(pctx) },
		func(err error) error {
			return fmt.Errorf("checking the local server %s: %w", text.RedactURL(e.url), err)
		})
	return err
}

func (e *Endpoint) unreachable(err error) error {
	fix := "start HuggingGPT's models_server or set local.url"
	if e.protocol == ProtocolHF {
		fix = "start the inference server or set local.url"
	}
	return endpoints.Explain(fmt.Sprintf("local server %s is not reachable — %s (%v)", e.url, fix, err), endpoints.ErrUnreachable, err)
}

// maxProbeBody bounds a status answer: {"running": true} is a few bytes.
const maxProbeBody = 64 << 10

// get fetches a small JSON document from the server.
func (e *Endpoint) get(ctx context.Context, path string) (int, []byte, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, e.url+path, nil)
	if err != nil {
		return 0, nil, err
	}
	r.Header.Set("User-Agent", "chorus")
	resp, err := e.client.Do(r)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	// The server answered: that is what a probe learns. A body too large
	// or cut short is simply not the JSON a status answer is.
	body, _ := httpwire.ReadBody(resp, maxProbeBody)
	return resp.StatusCode, body, nil
}

// probeRunning asks models_server's GET /running; for the hf protocol any
// HTTP answer from the root shows the server is up.
func (e *Endpoint) probeRunning(ctx context.Context) error {
	if e.protocol == ProtocolHF {
		if _, _, err := e.get(ctx, "/"); err != nil {
			return e.unreachable(err)
		}
		return nil
	}
	status, body, err := e.get(ctx, "/running")
	if err != nil {
		return e.unreachable(err)
	}
	var ans struct {
		Running bool `json:"running"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ans) != nil {
		return &endpoints.HTTPError{Kind: skills.EndpointLocal, Status: status, Err: endpoints.ErrUnavailable,
			Message: fmt.Sprintf("%s answered GET /running unlike HuggingGPT's models_server — check local.url, or set local.protocol: hf for a Hugging Face-style server", e.url)}
	}
	if !ans.Running {
		return endpoints.Explain(fmt.Sprintf("local server %s says it is not running models yet — wait for it to finish loading", e.url), endpoints.ErrUnavailable)
	}
	return nil
}

// probeStatus asks models_server's GET /status/{model}.
func (e *Endpoint) probeStatus(ctx context.Context, model, path string) error {
	status, body, err := e.get(ctx, "/status/"+path)
	if err != nil {
		return e.unreachable(err)
	}
	var ans struct {
		Loaded bool `json:"loaded"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ans) != nil {
		return &endpoints.HTTPError{Kind: skills.EndpointLocal, Model: model, Status: status, Err: endpoints.ErrUnavailable,
			Message: fmt.Sprintf("%s answered GET /status/%s unlike HuggingGPT's models_server — check local.url and local.protocol", e.url, model)}
	}
	if !ans.Loaded {
		return endpoints.Explain(fmt.Sprintf("model %s is not loaded on the local server %s — add it to models_server's deployment (local_deployment: full) and restart it, or pick another model", model, e.url), endpoints.ErrUnavailable)
	}
	return nil
}

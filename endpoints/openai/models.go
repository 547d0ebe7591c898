package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/text"
)

// probeTimeout bounds one GET /v1/models.
const probeTimeout = 5 * time.Second

// maxModelList bounds a model list read into memory; a list of thousands
// of models is still well under it.
const maxModelList = 8 << 20

// ready says whether s is up and, when it lists its models, lists model.
func (e *Endpoint) ready(ctx context.Context, s *Server, model string) error {
	ids, err := e.models(ctx, s)
	if err != nil {
		return err
	}
	if ids == nil || slices.Contains(ids, strings.ToLower(model)) {
		return nil
	}
	listed := "none"
	if len(ids) > 0 {
		listed = text.Clip(strings.Join(ids, ", "), 200)
	}
	return endpoints.Explain(fmt.Sprintf("%s at %s does not serve model %s (GET /v1/models lists %s) — load it on the server, or fix the id in %s.models",
		s.label(), s.URL, model, listed, fmt.Sprintf("openai[%d]", s.Index)), endpoints.ErrUnavailable)
}

// models returns s's model ids, lower case, from the cache while it is
// fresh; nil when the server has no model list (a speech server without
// /v1/models).
func (e *Endpoint) models(ctx context.Context, s *Server) ([]string, error) {
	return e.probes.Do(ctx, s.slot, func(pctx context.Context) ([]string, error) { return e.listModels(pctx, s) },
		func(err error) error {
			return fmt.Errorf("checking %s at %s: %w", s.label(), text.RedactURL(s.URL), err)
		})
}

// forgetAfter drops s's cached model list when a call has shown it stale
// (the server went away, or no longer has the model).
func (e *Endpoint) forgetAfter(s *Server, err error) {
	if errors.Is(err, endpoints.ErrUnreachable) || errors.Is(err, endpoints.ErrUnavailable) {
		e.probes.Forget(s.slot)
	}
}

// listModels asks s for GET /v1/models. A server that answers 404 or 405
// there (some speech servers have no model list) is up, with no list to
// check against; one that answers 401 refuses the key.
func (e *Endpoint) listModels(ctx context.Context, s *Server) ([]string, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/v1/models", nil)
	if err != nil {
		return nil, endpoints.Explain(fmt.Sprintf("%s has an unusable URL %q: %v — fix openai[%d].url", s.label(), s.URL, err, s.Index), endpoints.ErrUnavailable)
	}
	e.authorize(r, s)
	resp, err := e.client.Do(r)
	if err != nil {
		return nil, e.unreachable(s, err)
	}
	defer resp.Body.Close()
	body, err := httpwire.ReadBody(resp, maxModelList)
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		return nil, e.statusError(s, "", "GET /v1/models", resp, body)
	case err != nil:
		return nil, endpoints.Explain(fmt.Sprintf("%s answered GET /v1/models unreadably: %v", s.label(), err), endpoints.ErrUnavailable, err)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil {
		return nil, endpoints.Explain(fmt.Sprintf("%s answered GET /v1/models unlike an OpenAI-compatible server (want {\"data\":[{\"id\":…}]}) — check openai[%d].url", s.label(), s.Index), endpoints.ErrUnavailable)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, strings.ToLower(m.ID))
	}
	return ids, nil
}

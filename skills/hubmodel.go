package skills

import (
	"context"
	"encoding/json"
	"net/url"
)

// HubModel is what the Hub says of one model: the facts `chorus models
// sync` reads of a listing's item (Model: downloads, licence, size,
// benchmarks, Inference Providers, and the endpoint kinds that can serve
// it — none when nothing can), the task the Hub lists it for, and whether
// the Hub disabled it.
type HubModel struct {
	Model
	// PipelineTag is the Hub's task of the model ("image-to-text"); ""
	// when the Hub names none.
	PipelineTag string
	// Disabled: the Hub keeps the repository but serves it to no one.
	Disabled bool
}

// ModelInfo asks the Hub about one model — GET {BaseURL}/api/models/{id}
// with the properties a sync asks the listing for (one expand parameter
// each, as huggingface_hub's model_info sends them) and the token — and
// reads it as a sync reads a listing's item. It is how a model the
// catalog does not list, named in a request, is looked up. Failures are
// *HubError wrapping the Hub sentinels: ErrHubNotFound for an id the Hub
// does not know, ErrHubUnreachable when no answer came.
func (h *Hub) ModelInfo(ctx context.Context, id string) (HubModel, error) {
	q := url.Values{}
	for _, e := range hubExpand {
		q.Add("expand", e)
	}
	body, status, err := h.getModel(ctx, id, q.Encode(), true)
	if err != nil {
		return HubModel{}, err
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return HubModel{}, &HubError{URL: h.base(), Model: id, Info: true, Status: status, Message: "the answer is not a model's JSON",
			Err: ErrHubUnavailable, hint: "is huggingface.hub_url the Hub (https://huggingface.co)?"}
	}
	tag := str(raw, "pipeline_tag")
	m := hubModel(raw, tag)
	if m.ID == "" {
		m.ID = id
	}
	return HubModel{Model: m, PipelineTag: tag, Disabled: boolean(raw, "disabled")}, nil
}

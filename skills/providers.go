package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/chorusai/chorus/httpwire"
)

// Provider says that an Inference Provider serves a model behind Hugging
// Face's router (https://router.huggingface.co/{provider}/…), under which
// id, for which task and in which state: one entry of the Hub's
// inferenceProviderMapping. A model's Providers keep the Hub's order, which
// is the user's own order from https://hf.co/settings/inference-providers
// when the Hub was asked with their token.
type Provider struct {
	// Name is the provider: "hf-inference", "fal-ai", "replicate",
	// "together", "nebius", …
	Name string `yaml:"provider" json:"provider"`
	// ID is the model's id on the provider's side ("fal-ai/flux/schnell");
	// empty means the Hub id.
	ID string `yaml:"id,omitempty" json:"id,omitempty"`
	// Task is the Hub task the provider serves the model for
	// ("text-to-image", "conversational"); empty means the skill's.
	Task string `yaml:"task,omitempty" json:"task,omitempty"`
	// Status is "live" or "staging" (only for the provider's own tests);
	// empty means live.
	Status string `yaml:"status,omitempty" json:"status,omitempty"`
	// Adapter is "lora" when the model is a LoRA the provider applies to
	// a base model, with its weights file in AdapterWeightsPath.
	Adapter            string `yaml:"adapter,omitempty" json:"adapter,omitempty"`
	AdapterWeightsPath string `yaml:"adapter_weights_path,omitempty" json:"adapter_weights_path,omitempty"`
}

// Live reports whether the provider serves the model to everyone now.
func (p Provider) Live() bool { return p.Status == "" || p.Status == ProviderLive }

// ProviderID is the id to send the provider: ID, or model when it has none.
func (p Provider) ProviderID(model string) string {
	if p.ID != "" {
		return p.ID
	}
	return model
}

// The states of a provider mapping.
const (
	ProviderLive    = "live"
	ProviderStaging = "staging"
)

// providerNameRE is what provider names look like on the Hub.
var providerNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Validate checks one curated or synced mapping entry.
func (p Provider) Validate() error {
	if !providerNameRE.MatchString(p.Name) {
		return fmt.Errorf("provider %q is not a provider name such as fal-ai or hf-inference", p.Name)
	}
	if strings.ContainsAny(p.ID, " \t\r\n?#") {
		return fmt.Errorf("provider %s: id %q is not a model id", p.Name, p.ID)
	}
	if p.Status != "" && p.Status != ProviderLive && p.Status != ProviderStaging {
		return fmt.Errorf("provider %s: status %q is not live or staging", p.Name, p.Status)
	}
	return nil
}

// LiveProviders returns the providers that serve m live, in order.
func (m Model) LiveProviders() []Provider {
	var out []Provider
	for _, p := range m.Providers {
		if p.Live() {
			out = append(out, p)
		}
	}
	return out
}

// ParseProviderMapping reads the Hub's inferenceProviderMapping for model:
// a list of {provider, providerId, status, task, adapter,
// adapterWeightsPath} (listings and newer single-model answers) or an
// object keyed by provider (older single-model answers), as the official
// client normalises it. Entries without a provider name are dropped; the
// order is kept (an object's keys in the order they were written).
func ParseProviderMapping(model string, raw json.RawMessage) ([]Provider, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	type entry struct {
		Provider           string `json:"provider"`
		ProviderID         string `json:"providerId"`
		Status             string `json:"status"`
		Task               string `json:"task"`
		Adapter            string `json:"adapter"`
		AdapterWeightsPath string `json:"adapterWeightsPath"`
	}
	convert := func(name string, e entry) (Provider, bool) {
		if e.Provider != "" {
			name = e.Provider
		}
		p := Provider{Name: strings.TrimSpace(name), ID: strings.TrimSpace(e.ProviderID), Task: strings.TrimSpace(e.Task),
			Status: strings.TrimSpace(e.Status), Adapter: e.Adapter, AdapterWeightsPath: e.AdapterWeightsPath}
		if p.ID == model {
			p.ID = "" // the Hub id: no need to repeat it
		}
		return p, p.Validate() == nil
	}
	var out []Provider
	switch raw[0] {
	case '[':
		var list []entry
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("inferenceProviderMapping of %s: %w", model, err)
		}
		for _, e := range list {
			if p, ok := convert("", e); ok {
				out = append(out, p)
			}
		}
	case '{':
		// Go maps lose the order; the decoder's tokens keep it.
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("inferenceProviderMapping of %s: %w", model, err)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("inferenceProviderMapping of %s: %w", model, err)
			}
			name, _ := tok.(string)
			var e entry
			if err := dec.Decode(&e); err != nil {
				return nil, fmt.Errorf("inferenceProviderMapping of %s: %w", model, err)
			}
			if p, ok := convert(name, e); ok {
				out = append(out, p)
			}
		}
	default:
		return nil, fmt.Errorf("inferenceProviderMapping of %s is neither a list nor an object", model)
	}
	return out, nil
}

// providersFromHub reads a listing item's mapping; a malformed one reads
// as none.
func providersFromHub(id string, raw map[string]any) []Provider {
	v, ok := raw["inferenceProviderMapping"]
	if !ok || v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	if obj, ok := v.(map[string]any); ok {
		// A decoded object has lost its order; sort it so a listing reads
		// the same every time (the live lookup keeps the real order).
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			kb, _ := json.Marshal(k)
			vb, _ := json.Marshal(obj[k])
			parts = append(parts, string(kb)+":"+string(vb))
		}
		b = []byte("{" + strings.Join(parts, ",") + "}")
	}
	ps, _ := ParseProviderMapping(id, b)
	return ps
}

// maxMappingBody bounds a single model's answer.
const maxMappingBody = 1 << 20

// ErrHubNotFound means the Hub does not know the model (HTTP 404), or
// hides it from this token.
var ErrHubNotFound = errors.New("hugging face hub: model not found")

// ProviderMapping asks the Hub which Inference Providers serve model, as
// the official client does before every call: GET
// {BaseURL}/api/models/{model}?expand[]=inferenceProviderMapping, with the
// token, so the answer comes in the user's own provider order. Failures
// are *HubError wrapping the Hub sentinels (ErrHubNotFound for a model
// the Hub does not know).
func (h *Hub) ProviderMapping(ctx context.Context, model string) ([]Provider, error) {
	body, status, err := h.getModel(ctx, model, "expand%5B%5D=inferenceProviderMapping", false)
	if err != nil {
		return nil, err
	}
	var v struct {
		Mapping json.RawMessage `json:"inferenceProviderMapping"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, &HubError{URL: h.base(), Model: model, Status: status, Message: "the answer is not a model's JSON",
			Err: ErrHubUnavailable, hint: "is huggingface.hub_url the Hub (https://huggingface.co)?"}
	}
	if len(v.Mapping) == 0 {
		// Not "served by none": the Hub did not say. The official
		// client refuses to guess too.
		return nil, &HubError{URL: h.base(), Model: model, Status: status, Message: "the answer has no inferenceProviderMapping",
			Err: ErrHubUnavailable, hint: "is huggingface.hub_url the Hub (https://huggingface.co)?"}
	}
	return ParseProviderMapping(model, v.Mapping)
}

// getModel asks the Hub's model API about model — GET
// {BaseURL}/api/models/{model}?{query}, with the token — and returns the
// answer's body and status. Failures are *HubError wrapping the Hub
// sentinels (ErrHubNotFound for a model the Hub does not know); info says
// the request asked for the model's facts (ModelInfo), not its providers.
func (h *Hub) getModel(ctx context.Context, model, query string, info bool) ([]byte, int, error) {
	segs := strings.Split(strings.TrimSpace(model), "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return nil, 0, fmt.Errorf("model id %q is not a Hugging Face model id (owner/name)", model)
		}
		segs[i] = url.PathEscape(s)
	}
	target := h.base() + "/api/models/" + strings.Join(segs, "/") + "?" + query
	asking := "asking the Hub which providers serve " + model
	if info {
		asking = "asking the Hub about " + model
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", asking, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "chorus")
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := h.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("%s: %w", asking, ctx.Err())
		}
		return nil, 0, &HubError{URL: h.base(), Model: model, Info: info, Message: "no answer", Err: errors.Join(ErrHubUnreachable, err),
			hint: "cannot reach the Hub (" + transportReason(err) + "); check the network or huggingface.hub_url"}
	}
	defer resp.Body.Close()
	body, err := httpwire.ReadBody(resp, maxMappingBody)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("%s: %w", asking, ctx.Err())
		}
		return nil, 0, &HubError{URL: h.base(), Model: model, Info: info, Status: resp.StatusCode, Message: "answer cut off or too large",
			Err: ErrHubUnavailable, hint: "try again later"}
	}
	// The Hub answers an anonymous caller 401 for an id it does not show
	// it — unknown, private or gated — and says which by X-Error-Code,
	// as huggingface_hub reads it: that is not a refused token.
	if resp.StatusCode == http.StatusNotFound || resp.Header.Get("X-Error-Code") == "RepoNotFound" {
		hint := "the Hub does not know " + model + " (or hides it from this token); check the id"
		if h.Token == "" {
			hint = "the Hub does not know " + model + ", or shows it only to a token; check the id, or set huggingface.token or HF_TOKEN for a private or gated model"
		}
		return nil, 0, &HubError{URL: h.base(), Model: model, Info: info, Status: resp.StatusCode, Message: hubMessage(body), Err: ErrHubNotFound, hint: hint}
	}
	if resp.StatusCode != http.StatusOK {
		err := h.statusError("", resp, body)
		var he *HubError
		if errors.As(err, &he) {
			he.Model, he.Info = model, info
			if he.Status == http.StatusBadRequest {
				he.hint = "the Hub rejected the request; check the model id and huggingface.hub_url"
			}
		}
		return nil, 0, err
	}
	return body, resp.StatusCode, nil
}

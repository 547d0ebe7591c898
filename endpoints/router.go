package endpoints

import (
	"fmt"
	"slices"

	"github.com/chorusai/chorus/skills"
)

// Mode is the inference_mode setting: which endpoints may run experts.
type Mode string

// The inference modes. Builtin experts (Go code inside Chorus) run in every
// mode: they are part of the program, not a model server.
const (
	ModeLocal       Mode = "local"
	ModeHuggingFace Mode = "huggingface"
	ModeHybrid      Mode = "hybrid"
)

// ParseMode validates an inference_mode value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeLocal, ModeHuggingFace, ModeHybrid:
		return m, nil
	}
	return "", fmt.Errorf("unknown inference mode %q (want local, huggingface or hybrid)", s)
}

// localFirst is the order routes are tried in: in-process, then programs on
// this machine, then self-hosted servers (models_server, OpenAI-compatible
// servers the user configured, Ollama), then the cloud.
var localFirst = []skills.EndpointKind{skills.EndpointBuiltin, skills.EndpointCommand, skills.EndpointLocal, skills.EndpointOpenAI, skills.EndpointOllama, skills.EndpointMCP, skills.EndpointHuggingFace, skills.EndpointRetrieval}

// Router holds the configured endpoints and orders them for a model.
type Router struct {
	mode Mode
	eps  map[skills.EndpointKind]Endpoint
}

// NewRouter returns a router over eps; nil endpoints are skipped so callers
// can pass optional ones unconditionally.
func NewRouter(mode Mode, eps ...Endpoint) *Router {
	r := &Router{mode: mode, eps: map[skills.EndpointKind]Endpoint{}}
	for _, e := range eps {
		if e != nil {
			r.eps[e.Kind()] = e
		}
	}
	return r
}

// Mode returns the inference mode.
func (r *Router) Mode() Mode { return r.mode }

// Endpoint returns the endpoint of kind k, if configured.
func (r *Router) Endpoint(k skills.EndpointKind) (Endpoint, bool) {
	e, ok := r.eps[k]
	return e, ok
}

// Allowed reports whether the mode lets endpoints of kind k run, with
// localOnly (a user constraint) excluding the cloud on top of the mode.
func (r *Router) Allowed(k skills.EndpointKind, localOnly bool) bool {
	if k == skills.EndpointBuiltin {
		return true
	}
	switch k {
	case skills.EndpointHuggingFace, skills.EndpointRetrieval, skills.EndpointMCP:
		// Retrieval is a call to a web API, a cloud call like Hugging
		// Face's; Routes admits a source that stays local (a SearxNG on
		// this network, by its Locator) in local mode too. An MCP server
		// the user configured runs in every mode but local, where only
		// the ones on this machine or network may (its Locator says).
		return r.mode != ModeLocal && !localOnly
	default:
		return r.mode != ModeHuggingFace
	}
}

// Routes returns the endpoints that may serve m, local first, filtered by
// the mode and by the kinds the model lists. It does not check readiness.
func (r *Router) Routes(m skills.Model, localOnly bool) []Endpoint {
	var out []Endpoint
	for _, k := range localFirst {
		e, ok := r.eps[k]
		if !ok || !m.ServedBy(k) {
			continue
		}
		if !r.Allowed(k, localOnly) && !((k == skills.EndpointRetrieval || k == skills.EndpointMCP) && staysLocal(e, m.ID)) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// staysLocal reports whether e serves model without leaving this machine
// or network (its Locator says nothing remote), which admits a retrieval
// source where only local endpoints may run.
func staysLocal(e Endpoint, model string) bool {
	l, ok := e.(Locator)
	return ok && l.Remote("", model) == ""
}

// Discoverers returns the configured endpoints that can offer extra models,
// in local-first order, filtered by mode. MCP servers are always asked:
// Routes decides per tool whether its server may run in the mode.
func (r *Router) Discoverers(localOnly bool) []Discoverer {
	var out []Discoverer
	for _, k := range localFirst {
		if e, ok := r.eps[k]; ok && (r.Allowed(k, localOnly) || k == skills.EndpointMCP) {
			if d, ok := e.(Discoverer); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// Kinds returns the configured kinds in local-first order.
func (r *Router) Kinds() []skills.EndpointKind {
	var out []skills.EndpointKind
	for _, k := range localFirst {
		if _, ok := r.eps[k]; ok {
			out = append(out, k)
		}
	}
	return slices.Clip(out)
}

package selection

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// models lists the catalog's candidates for s plus those endpoints discover
// (pulled Ollama models, OpenAI-compatible servers' models), without
// duplicates: a catalog model an endpoint also offers gains its route. An
// endpoint that cannot say what it offers (Ollama not running) comes back
// as an exclusion with its reason, so a missing model is explained rather
// than silently absent.
func (sel *Selector) models(ctx context.Context, s *skills.Skill, localOnly bool) ([]skills.Model, []flow.Exclusion) {
	out := slices.Clone(s.Models)
	var unseen []flow.Exclusion
	seen := map[string]int{} // lower-case id → index in out
	for i, m := range out {
		seen[strings.ToLower(m.ID)] = i
	}
	for _, d := range sel.Router.Discoverers(localOnly) {
		kind := d.Kind()
		offers, err := d.Discover(ctx, s.Name)
		if err != nil {
			if ctx.Err() == nil {
				unseen = append(unseen, flow.Exclusion{ID: fmt.Sprintf("(%s models)", kind), Reason: "cannot list them: " + err.Error()})
			}
			continue
		}
		for _, o := range offers {
			if i, ok := seen[strings.ToLower(o.ID)]; ok {
				// A model the catalog lists that this endpoint also
				// serves (a vLLM server with openai/whisper-large-v3)
				// gains the route and keeps the catalog's facts; the
				// catalog's slice is not touched.
				m := &out[i]
				if !m.ServedBy(kind) {
					m.Endpoints = append(slices.Clone(m.Endpoints), kind)
				}
				m.Configured = m.Configured || o.Configured
				continue
			}
			seen[strings.ToLower(o.ID)] = len(out)
			out = append(out, skills.Model{ID: o.ID, Description: o.Description, Params: o.Params, SizeBytes: o.SizeBytes,
				License: o.License, Niche: o.Niche, Endpoints: []skills.EndpointKind{kind}, Configured: o.Configured})
		}
	}
	return out, unseen
}

// readyRoutes returns the endpoints that can serve m for task now, local
// first, or why none can.
func (sel *Selector) readyRoutes(ctx context.Context, task string, m skills.Model, localOnly bool) ([]endpoints.Endpoint, string) {
	routes := sel.Router.Routes(m, localOnly)
	if len(routes) == 0 {
		return nil, sel.noRouteReason(m, localOnly)
	}
	var ready []endpoints.Endpoint
	var why []string
	for _, r := range routes {
		// A kind whose servers may be anywhere (openai) says per model
		// whether this one is local; the router cannot tell by kind.
		if loc, ok := r.(endpoints.Locator); ok && localOnly {
			if remote := loc.Remote(task, m.ID); remote != "" {
				why = append(why, "the local-only constraint rules out "+remote)
				continue
			}
		}
		if err := r.Check(ctx, task, m.ID); err != nil {
			why = append(why, err.Error())
			continue
		}
		ready = append(ready, r)
	}
	return ready, strings.Join(why, "; ")
}

func (sel *Selector) noRouteReason(m skills.Model, localOnly bool) string {
	var parts []string
	for _, kind := range m.Endpoints {
		_, configured := sel.Router.Endpoint(kind)
		switch {
		case kind == skills.EndpointHuggingFace && localOnly:
			parts = append(parts, "the local-only constraint rules out Hugging Face")
		case kind == skills.EndpointRetrieval && configured && (localOnly || sel.Router.Mode() == endpoints.ModeLocal):
			// Name the rule that applies, not both: the fix differs.
			rule := "the local-only constraint rules"
			if sel.Router.Mode() == endpoints.ModeLocal {
				rule = "inference_mode local rules"
				if localOnly {
					rule = "inference_mode local and the local-only constraint rule"
				}
			}
			parts = append(parts, "it is a web lookup, which "+rule+" out — set retrieval.searxng_url to a SearxNG on this machine or network to look things up there")
		case kind == skills.EndpointRetrieval && !configured:
			parts = append(parts, "retrieval is off — set retrieval.wikipedia_url or retrieval.searxng_url")
		case !sel.Router.Allowed(kind, false):
			parts = append(parts, fmt.Sprintf("inference_mode %s rules out %s endpoints", sel.Router.Mode(), kind))
		case !configured && kind == skills.EndpointLocal:
			parts = append(parts, "needs a local inference server (set local.url)")
		case !configured:
			parts = append(parts, fmt.Sprintf("no %s endpoint is configured", kind))
		}
	}
	if len(parts) == 0 {
		return "no endpoint can serve it"
	}
	return strings.Join(parts, "; ")
}

// noCandidateReason says why no model can run task. Its example is a model
// the user configured (an openai server's, say) where one was excluded:
// that is the exclusion they meant to work and can fix, while the
// catalog's are listed first and would hide it.
func noCandidateReason(task string, cons flow.Constraints, applies bool, excluded []flow.Exclusion, configured map[string]bool) string {
	if len(excluded) == 0 {
		return "the catalog has no model for " + task
	}
	var b strings.Builder
	if applies && !cons.IsZero() {
		b.WriteString("no model satisfies the constraints (" + cons.String() + ")")
	} else {
		b.WriteString("no model can run it now")
	}
	// Short: this reason is shown wherever the task is (the Models and
	// Execution panes, the log, the answer's workflow). The model event
	// carries every exclusion for whoever wants the whole list.
	x := excluded[0]
	if i := slices.IndexFunc(excluded, func(x flow.Exclusion) bool { return configured[x.ID] }); i >= 0 {
		x = excluded[i]
	}
	switch len(excluded) {
	case 1:
		fmt.Fprintf(&b, ": %s — %s", x.ID, text.Clip(x.Reason, 160))
	default:
		fmt.Fprintf(&b, ": %d models excluded, e.g. %s — %s", len(excluded), x.ID, text.Clip(x.Reason, 120))
	}
	return b.String()
}

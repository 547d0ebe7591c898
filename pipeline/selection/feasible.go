package selection

import (
	"fmt"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// Unqualifiable says why, under cons and the engine's inference mode, no
// expert model can qualify for any task — "" when some can. Selection would
// find it out task by task, each time with the whole list of excluded
// models; this says it once, where the constraint is set (/constrain,
// --constrain, the config) and when a turn starts selecting.
//
// It looks only at the catalog's facts and the configured endpoints, never
// at the network: a model whose server is down still counts as one that can
// qualify. Chorus's built-in tools are its own code, which no constraint
// is about, so they do not count either way.
func (sel *Selector) Unqualifiable(cons flow.Constraints) string {
	if cons.IsZero() {
		return ""
	}
	mode := sel.Router.Mode()
	if cons.LocalOnly && mode == endpoints.ModeHuggingFace {
		return "local-only with inference_mode huggingface rules out every model endpoint (local ones are off in that mode, " +
			"and Hugging Face is not local): only the built-in tools and the controller's own text tasks can run — " +
			"use inference_mode local or hybrid (--mode), or drop local-only"
	}
	// Pulled Ollama models are discovered per turn and have no licence or
	// size in the catalog: they can qualify only when neither is limited.
	if _, ok := sel.Router.Endpoint(skills.EndpointOllama); ok && sel.Router.Allowed(skills.EndpointOllama, cons.LocalOnly) &&
		len(cons.Licenses) == 0 && cons.MaxSize.IsZero() {
		return ""
	}
	for _, s := range sel.Catalog.All() {
		if !cons.AppliesTo(s.Name) && len(s.Models) > 0 {
			return "" // a task the constraints leave alone
		}
		for _, m := range s.Models {
			if builtinOnly(m) {
				continue
			}
			if len(sel.Router.Routes(m, cons.LocalOnly)) > 0 && constraintRejects(cons, m) == "" {
				return ""
			}
		}
	}
	return fmt.Sprintf("no model in the catalog can meet %s with inference_mode %s and the endpoints configured: "+
		"every task but the built-in tools and the controller's own text tasks will be refused — "+
		"loosen the constraints (/models TASK shows why each model is excluded)", cons.String(), mode)
}

// builtinOnly reports whether m is one of Chorus's built-in tools.
func builtinOnly(m skills.Model) bool {
	return len(m.Endpoints) == 1 && m.Endpoints[0] == skills.EndpointBuiltin
}

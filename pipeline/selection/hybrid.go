package selection

import (
	"cmp"
	"slices"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// HuggingGPT's hybrid mode is local first: the models that can run here —
// in Chorus's own code, as a program on this machine, on the user's own
// servers (a models_server, an OpenAI-compatible server on this network,
// Ollama) — are candidates before the ones only the cloud runs. Within
// each group the skill's ranking stands (the curated default, then
// downloads); a user's configured model stays first and a special-purpose
// (niche) model stays last whatever runs it.

// rankLocalFirst reorders ranked candidates for hybrid mode, and reports
// whether it moved a local candidate ahead of the one the skill's ranking
// put first.
func (sel *Selector) rankLocalFirst(task string, cands []*flow.Option) bool {
	if sel.Router == nil || sel.Router.Mode() != endpoints.ModeHybrid || len(cands) < 2 {
		return false
	}
	first := cands[0]
	tier := func(cd *flow.Option) int {
		switch {
		case cd.Model.Configured:
			return 0
		case cd.Model.Niche != "":
			return 3
		case runsHere(task, cd):
			return 1
		}
		return 2
	}
	slices.SortStableFunc(cands, func(a, b *flow.Option) int { return cmp.Compare(tier(a), tier(b)) })
	return cands[0] != first
}

// runsHere reports whether a candidate's first route keeps the call off the
// cloud: any kind but Hugging Face and web retrieval, unless the endpoint
// says this model's server is remote (an OpenAI-compatible server elsewhere).
func runsHere(task string, cd *flow.Option) bool {
	if len(cd.Routes) == 0 {
		return false
	}
	r := cd.Routes[0]
	switch r.Kind() {
	case skills.EndpointHuggingFace, skills.EndpointRetrieval:
		return false
	}
	if loc, ok := r.(endpoints.Locator); ok && loc.Remote(task, cd.Model.ID) != "" {
		return false
	}
	return true
}

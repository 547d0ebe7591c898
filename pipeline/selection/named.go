package selection

import (
	"fmt"
	"slices"

	"github.com/chorusai/chorus/pipeline/flow"
)

// mentions returns the ids among ids that words name, in ids' order.
func mentions(words []string, ids []string) []string {
	var out []string
	for _, id := range ids {
		if slices.ContainsFunc(words, func(w string) bool { return flow.NamesModel(w, id) }) {
			out = append(out, id)
		}
	}
	return out
}

// namedCandidate returns the candidate the request names, when it names
// exactly one of cands: the user chose, and that choice is not the
// ranking's or the controller's to overrule. Naming two leaves the choice
// open.
func namedCandidate(request string, cands []*flow.Option) *flow.Option {
	if request == "" || len(cands) == 0 {
		return nil
	}
	ids := make([]string, len(cands))
	for i, cd := range cands {
		ids[i] = cd.Model.ID
	}
	named := mentions(flow.RequestWords(request), ids)
	if len(named) != 1 {
		return nil
	}
	return cands[slices.IndexFunc(cands, func(cd *flow.Option) bool { return cd.Model.ID == named[0] })]
}

// namedExclusion returns the excluded model the request names, with why
// it cannot run the task (no route, a constraint), so that a named model
// that does not run is never passed over in silence.
func namedExclusion(request string, excluded []flow.Exclusion) (flow.Exclusion, bool) {
	if request == "" {
		return flow.Exclusion{}, false
	}
	words := flow.RequestWords(request)
	for _, x := range excluded {
		if slices.ContainsFunc(words, func(w string) bool { return flow.NamesModel(w, x.ID) }) {
			return x, true
		}
	}
	return flow.Exclusion{}, false
}

// namedNotRunning is the start of a task's reason when the request names
// a model the task cannot use, "" otherwise.
func namedNotRunning(request string, excluded []flow.Exclusion) string {
	if x, ok := namedExclusion(request, excluded); ok {
		return fmt.Sprintf("%s (named in the request) cannot run it: %s — ", x.ID, x.Reason)
	}
	return ""
}

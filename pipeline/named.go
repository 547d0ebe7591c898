package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
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

// noteNamedElsewhere notes, once per model, a catalog model the request
// names that no task of the plan can use: it runs other tasks (a
// captioner named for a classification). Models Ollama serves are left to
// selection, which sees what the server offers for each task.
func (v *validator) noteNamedElsewhere(tasks []flow.Task) {
	if v.turn.Request == "" || len(tasks) == 0 || v.cat == nil || v.taken != nil {
		return // (a revision's tasks join a plan that was told already)
	}
	words := flow.RequestWords(v.turn.Request)
	planned := map[string]bool{}
	for _, t := range tasks {
		if _, gone := v.dropped[t.ID]; !gone {
			planned[t.Task] = true
		}
	}
	runs := map[string][]string{} // model id → the skills listing it
	var order []string
	for _, s := range v.cat.All() {
		for _, m := range s.Models {
			if m.ServedBy(skills.EndpointOllama) || !slices.ContainsFunc(words, func(w string) bool { return flow.NamesModel(w, m.ID) }) {
				continue
			}
			if _, seen := runs[m.ID]; !seen {
				order = append(order, m.ID)
			}
			runs[m.ID] = append(runs[m.ID], s.Name)
		}
	}
	for _, id := range order {
		if slices.ContainsFunc(runs[id], func(s string) bool { return planned[s] }) {
			continue
		}
		note := fmt.Sprintf("ignored %s (named in the request): it runs %s, and no task of this plan is one", id, strings.Join(runs[id], " or "))
		if !slices.Contains(v.notes, note) { // a reviewed plan is validated again
			v.notes = append(v.notes, note)
		}
	}
}

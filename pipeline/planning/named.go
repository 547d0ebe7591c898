package planning

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

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

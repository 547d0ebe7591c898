package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/chorusai/chorus/skills"
)

// requestWords are the words of a request that may name a model or state
// a preference, lower-cased and without the quotes, backticks, brackets
// and punctuation around them ("`Salesforce/blip-image-captioning-large`,"
// → salesforce/blip-image-captioning-large). Paths and URLs the user typed
// are left out: they name files, not models ("/tmp/fast-cars.png",
// "./models/llava:7b", "@cat.png", "https://…").
func requestWords(request string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(request)) {
		w = strings.TrimLeft(w, "\"'`([{<*_“‘«")
		w = strings.TrimRight(w, "\"'`)]}>*_,;:!?.…”’»")
		if w == "" || isPathWord(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// isPathWord reports whether w, a word of a request, is written as a path
// or a URL rather than a model id: a model id has at most one slash and
// never starts with one.
func isPathWord(w string) bool {
	switch {
	case strings.HasPrefix(w, "/"), strings.HasPrefix(w, "~"), strings.HasPrefix(w, "@"),
		strings.HasPrefix(w, "./"), strings.HasPrefix(w, "../"), strings.HasPrefix(w, "file:"):
		return true
	}
	return strings.Contains(w, "://") || strings.ContainsRune(w, '\\') || strings.Count(w, "/") > 1
}

// namesModel reports whether word (from requestWords) names the model id:
// the id itself in any case; an Ollama model without its ":latest" tag
// (llava for llava:latest) or with it; or a Hub id without its
// organisation (blip-image-captioning-large), when that part is not a
// plain word — "resize" in a sentence names no model, "chorus/resize" does.
func namesModel(word, id string) bool {
	id = strings.ToLower(id)
	if word == id || strings.TrimSuffix(word, ":latest") == strings.TrimSuffix(id, ":latest") {
		return true
	}
	org, name, ok := strings.Cut(id, "/")
	if !ok || org == "" || strings.Contains(name, "/") {
		return false
	}
	return word == name && strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) })
}

// mentions returns the ids among ids that words name, in ids' order.
func mentions(words []string, ids []string) []string {
	var out []string
	for _, id := range ids {
		if slices.ContainsFunc(words, func(w string) bool { return namesModel(w, id) }) {
			out = append(out, id)
		}
	}
	return out
}

// namedCandidate returns the candidate the request names, when it names
// exactly one of cands: the user chose, and that choice is not the
// ranking's or the controller's to overrule. Naming two leaves the choice
// open.
func namedCandidate(request string, cands []*candidate) *candidate {
	if request == "" || len(cands) == 0 {
		return nil
	}
	ids := make([]string, len(cands))
	for i, cd := range cands {
		ids[i] = cd.model.ID
	}
	named := mentions(requestWords(request), ids)
	if len(named) != 1 {
		return nil
	}
	return cands[slices.IndexFunc(cands, func(cd *candidate) bool { return cd.model.ID == named[0] })]
}

// namedExclusion returns the excluded model the request names, with why
// it cannot run the task (no route, a constraint), so that a named model
// that does not run is never passed over in silence.
func namedExclusion(request string, excluded []Exclusion) (Exclusion, bool) {
	if request == "" {
		return Exclusion{}, false
	}
	words := requestWords(request)
	for _, x := range excluded {
		if slices.ContainsFunc(words, func(w string) bool { return namesModel(w, x.ID) }) {
			return x, true
		}
	}
	return Exclusion{}, false
}

// namedNotRunning is the start of a task's reason when the request names
// a model the task cannot use, "" otherwise.
func namedNotRunning(request string, excluded []Exclusion) string {
	if x, ok := namedExclusion(request, excluded); ok {
		return fmt.Sprintf("%s (named in the request) cannot run it: %s — ", x.ID, x.Reason)
	}
	return ""
}

// noteNamedElsewhere notes, once per model, a catalog model the request
// names that no task of the plan can use: it runs other tasks (a
// captioner named for a classification). Models Ollama serves are left to
// selection, which sees what the server offers for each task.
func (v *validator) noteNamedElsewhere(tasks []Task) {
	if v.turn.Request == "" || len(tasks) == 0 || v.cat == nil || v.taken != nil {
		return // (a revision's tasks join a plan that was told already)
	}
	words := requestWords(v.turn.Request)
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
			if m.ServedBy(skills.EndpointOllama) || !slices.ContainsFunc(words, func(w string) bool { return namesModel(w, m.ID) }) {
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

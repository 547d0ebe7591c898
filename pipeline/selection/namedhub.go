package selection

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// A model the request names that the catalog does not list — "caption
// /p/cat.png with microsoft/git-base-coco please" — is looked up on the
// Hugging Face Hub while the plan is written: its pipeline tag, licence,
// size and which Inference Providers serve it, the facts `chorus models
// sync` reads (skills.Hub.ModelInfo). A task of that tag takes it as a
// candidate, and the request's naming makes it the choice (named.go); one
// that cannot run it says why first in its reason, in one line (no
// provider serves it, inference_mode, a licence or size the Hub's facts do
// not show to fit). A model no task of the plan can use (the Hub lists it
// for another task), an id the Hub does not know, a Hub that cannot be
// asked, or inference_mode local (which asks the Hub nothing) gets one plan
// note. What the user named is never dropped in silence.

// HubLookup says what the Hugging Face Hub knows of one model
// (*skills.Hub): how a model the request names that the catalog does not
// list is found.
type HubLookup interface {
	ModelInfo(ctx context.Context, id string) (skills.HubModel, error)
}

// hubLookupTimeout bounds one lookup: the plan's notes wait for it.
const hubLookupTimeout = 10 * time.Second

// hubIDRE is a word written as a Hub model id: owner/name, each part of
// the Hub's characters, the name with a digit, '-', '.' or '_' in it as
// model names have — "and/or", "input/output" or "TCP/IP" are words.
var hubIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9._-]*[0-9._-][A-Za-z0-9._-]*$`)

// hubIDsNamed returns the words of request written as Hub model ids, as
// written (the Hub's ids keep their case), in order, once each. Paths, URLs
// and names with a file type's extension name files, as for namesModel.
func hubIDsNamed(request string) []string {
	var out []string
	for _, w := range strings.Fields(request) {
		w = strings.TrimLeft(w, "\"'`([{<*_“‘«")
		w = strings.TrimRight(w, "\"'`)]}>*_,;:!?.…”’»")
		if _, file := skills.ModalityOfName(w); file || flow.IsPathWord(strings.ToLower(w)) || !hubIDRE.MatchString(w) ||
			slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, w) }) {
			continue // a file's name ("photos/cat-1.png"), a path, a word
		}
		out = append(out, w)
	}
	return out
}

// namedOnHub are a turn's lookups of the models its request names outside
// the catalog, started with the turn.
type namedOnHub struct {
	ids []string
	got map[string]*hubAnswer // by lower-case id
}

// hubAnswer is one lookup: the Hub's answer or error, or why the Hub was
// not asked (why).
type hubAnswer struct {
	done  chan struct{}
	model skills.HubModel
	err   error
	why   string
}

type namedOnHubKey struct{}

// LookUpNamed starts looking up, on the Hub, the models request names that
// the catalog does not list, and returns ctx carrying the lookups for the
// turn's selection and notes (ctx itself when it names none).
func (sel *Selector) LookUpNamed(ctx context.Context, request string) context.Context {
	var h *namedOnHub
	for _, id := range hubIDsNamed(request) {
		if sel.inCatalog(id) {
			continue // the catalog's facts: named.go
		}
		if h == nil {
			h = &namedOnHub{got: map[string]*hubAnswer{}}
		}
		a := &hubAnswer{done: make(chan struct{})}
		h.ids, h.got[strings.ToLower(id)] = append(h.ids, id), a
		switch {
		case sel.Router.Mode() == endpoints.ModeLocal:
			a.why = "inference_mode local asks the Hugging Face Hub nothing — add it to a skill's models, or use inference_mode hybrid"
		case sel.Hub == nil:
			a.why = "no Hugging Face Hub is configured to look it up"
		default:
			go func() {
				defer close(a.done)
				lctx, cancel := context.WithTimeout(ctx, hubLookupTimeout)
				defer cancel()
				a.model, a.err = sel.Hub.ModelInfo(lctx, id)
			}()
			continue
		}
		close(a.done)
	}
	if h == nil {
		return ctx
	}
	return context.WithValue(ctx, namedOnHubKey{}, h)
}

// inCatalog reports whether a skill of the catalog lists the model id.
func (sel *Selector) inCatalog(id string) bool {
	for _, s := range sel.Catalog.All() {
		if slices.ContainsFunc(s.Models, func(m skills.Model) bool { return strings.EqualFold(m.ID, id) }) {
			return true
		}
	}
	return false
}

// answer waits for the lookup of id; false when the turn ended first.
func (h *namedOnHub) answer(ctx context.Context, id string) (*hubAnswer, bool) {
	a := h.got[strings.ToLower(id)]
	select {
	case <-a.done:
		return a, true
	case <-ctx.Done():
		return nil, false
	}
}

// fits reports whether the Hub lists m for s's task.
func fits(m skills.HubModel, s *skills.Skill) bool {
	tag, ok := s.HubPipelineTag()
	return ok && m.PipelineTag != "" && strings.EqualFold(tag, m.PipelineTag)
}

// namedFromHub returns the models the request names that the Hub lists for
// c's task, as candidates, once the turn's lookups are in; one that cannot
// run the task is excluded into c with why.
func (sel *Selector) namedFromHub(ctx context.Context, c *flow.Choice, cons flow.Constraints, have []*flow.Option) []*flow.Option {
	h, _ := ctx.Value(namedOnHubKey{}).(*namedOnHub)
	if h == nil {
		return nil
	}
	var out []*flow.Option
	for _, id := range h.ids {
		a, ok := h.answer(ctx, id)
		if !ok || a.err != nil || a.why != "" || !fits(a.model, c.Skill) {
			continue
		}
		m := a.model.Model
		same := func(cd *flow.Option) bool { return strings.EqualFold(cd.Model.ID, m.ID) }
		if slices.ContainsFunc(have, same) || slices.ContainsFunc(c.Excluded, func(x flow.Exclusion) bool { return strings.EqualFold(x.ID, m.ID) }) {
			continue // an endpoint offers it already
		}
		if a.model.Disabled {
			exclude(c, m.ID, "the Hub has disabled it")
			continue
		}
		var routes []endpoints.Endpoint
		why := "no Inference Provider serves it"
		if len(m.Endpoints) > 0 {
			var none string
			routes, none = sel.readyRoutes(ctx, c.Task.Task, m, c.LocalOnly)
			if m.ServedBy(skills.EndpointHuggingFace) {
				why = none
			} else {
				why += "; " + none // a library a local server loads
			}
		}
		if len(routes) == 0 {
			exclude(c, m.ID, why)
			continue
		}
		if cons.AppliesTo(c.Task.Task) {
			if why := constraintRejects(cons, m); why != "" {
				exclude(c, m.ID, why+" (the Hub's facts)")
				continue
			}
		}
		cd := &flow.Option{Model: m, Routes: routes}
		cd.Provider = flow.PlannedProvider(routes[0], c.Task.Task, m.ID)
		out = append(out, cd)
	}
	return out
}

// HubNotes are the plan's notes on the models the request names outside
// the catalog that no task of plan will weigh: one the Hub lists for
// another task, one it does not know, one it could not be asked about. A
// plan without tasks (chat) gets none.
func (sel *Selector) HubNotes(ctx context.Context, plan flow.Plan) []string {
	h, _ := ctx.Value(namedOnHubKey{}).(*namedOnHub)
	if h == nil || len(plan.Tasks) == 0 {
		return nil
	}
	var notes []string
	for _, id := range h.ids {
		a, ok := h.answer(ctx, id)
		if !ok {
			return notes
		}
		if note := a.note(id, plan, sel); note != "" && !sel.offered(ctx, plan, id) {
			notes = append(notes, note)
		}
	}
	return notes
}

// offered reports whether an endpoint offers the model id for a task of
// plan — an OpenAI-compatible server's own model, say: selection weighs it,
// whatever the Hub knows of it.
func (sel *Selector) offered(ctx context.Context, plan flow.Plan, id string) bool {
	for _, t := range plan.Tasks {
		s, ok := sel.Catalog.Skill(t.Task)
		if !ok {
			continue
		}
		models, _ := sel.models(ctx, s, false)
		if slices.ContainsFunc(models, func(m skills.Model) bool { return strings.EqualFold(m.ID, id) }) {
			return true
		}
	}
	return false
}

// note is the plan's note on the model id the request names, looked up as
// a says, or "" when a task of plan weighs it.
func (a *hubAnswer) note(id string, plan flow.Plan, sel *Selector) string {
	named := id + " (named in the request)"
	switch {
	case a.why != "":
		return fmt.Sprintf("%s was not used: it is not in the catalog, and %s", named, a.why)
	case errors.Is(a.err, skills.ErrHubNotFound):
		return fmt.Sprintf("%s was not used: the Hugging Face Hub knows no such model — check the id", named)
	case a.err != nil:
		return fmt.Sprintf("%s was not used: the Hugging Face Hub could not be asked about it (%s)", named, text.OneLine(a.err.Error(), 240))
	}
	for _, t := range plan.Tasks {
		if s, ok := sel.Catalog.Skill(t.Task); ok && fits(a.model, s) {
			return ""
		}
	}
	if a.model.PipelineTag == "" {
		return fmt.Sprintf("ignored %s: the Hub names no task for it", named)
	}
	return fmt.Sprintf("ignored %s: the Hub lists it for %s, and no task of this plan is one", named, a.model.PipelineTag)
}

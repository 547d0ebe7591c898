package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// EndpointController is the endpoint name of tasks the controller runs.
const EndpointController = "controller"

// candidate is a model that can run a task now, with its ready endpoints.
type candidate struct {
	model  skills.Model
	routes []endpoints.Endpoint
	// provider is the Inference Provider its huggingface route would try
	// first, "" when it has none.
	provider string
}

func (c *candidate) info() Candidate {
	kinds := make([]string, len(c.routes))
	for i, r := range c.routes {
		kinds[i] = string(r.Kind())
	}
	size := ""
	if c.model.Size() > 0 {
		size = c.model.HumanSize()
	}
	desc := c.model.Description
	if c.model.Niche != "" {
		desc = "(niche: " + c.model.Niche + ") " + desc
	}
	return Candidate{ID: c.model.ID, Endpoint: strings.Join(kinds, ","), Provider: c.provider, Downloads: c.model.Downloads,
		License: c.model.License, Size: size, Description: desc}
}

// choice is the selection stage's decision for one task.
type choice struct {
	task  Task
	skill *skills.Skill
	// controller is true when the controller LLM runs the task itself.
	controller      bool
	controllerModel string
	// ranked are the candidates to try in order: the chosen one first.
	ranked  []*candidate
	reason  string
	decided string
	// named says why the model the request names cannot run the task
	// (ending in " — "), said before the reason; "" when it names none.
	named string
	// unmet says which constraint could not be applied and what was done
	// instead, so it is never ignored silently.
	unmet string
	// localOnly is whether the local-only constraint applies to the task,
	// passed on to the endpoints that run it.
	localOnly bool
	// none explains why nothing can run the task; ranked is then empty.
	none string
	// top and excluded are reported in the model event.
	top      []Candidate
	excluded []Exclusion
}

// selectOne runs selectTask for one task; a bug in selection fails its
// task, not the program.
func (e *Engine) selectOne(ctx context.Context, task Task, cons Constraints, request string, emit Emit) (c *choice, pending bool) {
	defer func() {
		if r := recover(); r != nil {
			c = &choice{task: task, decided: "no candidate"}
			c.none = fmt.Sprintf("internal error while choosing its model: %v — this is a bug in Chorus; please report it", r)
			c.reason = c.none
			pending = false
		}
	}()
	return e.selectTask(ctx, task, cons, request, emit)
}

func (c *choice) event() ModelEvent {
	ev := ModelEvent{ID: c.task.ID, Task: c.task.Task, Reason: c.why(), Decided: c.decided, Candidates: c.top, Excluded: c.excluded, Unmet: c.unmet}
	switch {
	case c.controller:
		ev.Model, ev.Endpoint = c.controllerModel, EndpointController
	case len(c.ranked) > 0:
		ev.Model = c.ranked[0].model.ID
		ev.Endpoint = string(c.ranked[0].routes[0].Kind())
		ev.Provider = plannedProvider(c.ranked[0].routes[0], c.task.Task, ev.Model)
	}
	return ev
}

// why is the reason the choice is reported with.
func (c *choice) why() string { return c.named + c.reason }

// selectTask applies availability and constraints deterministically and
// ranks what is left. pending is true when more than one candidate remains
// and nothing decided between them: the controller chooses among c.top
// (askModels), c.ranked holding the download ranking meanwhile.
func (e *Engine) selectTask(ctx context.Context, task Task, cons Constraints, request string, emit Emit) (c *choice, pending bool) {
	c = &choice{task: task}
	s, ok := e.cat.Skill(task.Task)
	if !ok { // validation guarantees this; stay safe anyway
		c.none, c.decided = "unknown task "+task.Task, "no candidate"
		c.reason = c.none
		return c, false
	}
	c.skill = s
	applies := cons.AppliesTo(task.Task)
	c.localOnly = cons.LocalOnly && applies

	cands, configured := e.candidates(ctx, c, cons)
	cands = append(cands, e.namedFromHub(ctx, c, cons, cands)...)
	slices.SortStableFunc(cands, func(a, b *candidate) int { return s.CompareRank(a.model, b.model) })
	localFirst := e.rankLocalFirst(task.Task, cands)

	// The controller does text tasks itself, as HuggingGPT does, unless a
	// licence, size or ranking constraint needs facts the catalog lacks for
	// it, or the request names a model that can run the task.
	if s.Controller && e.opts.ControllerTasks && namedCandidate(request, cands) == nil {
		if !applies || (len(cons.Licenses) == 0 && cons.MaxSize.IsZero() && cons.Prefer == "") {
			c.named = namedNotRunning(request, c.excluded)
			c.controller, c.controllerModel, c.decided = true, e.ctl.Model(), "controller"
			c.reason = fmt.Sprintf("the controller (%s) handles %s itself, as HuggingGPT does for text tasks", e.ctl.Model(), task.Task)
			c.ranked = cands
			c.top = infos(cands[:min(len(cands), e.opts.NumCandidates)])
			return c, false
		}
		c.exclude(e.ctl.Model()+" (controller)", "its licence and size are not in the catalog, so it cannot be shown to meet the constraints")
	}

	decidedBy := ""
	if applies {
		cands, decidedBy = c.applyPreference(s, cons, cands)
	}

	// A named model that cannot run is said first, whatever decides.
	c.named = namedNotRunning(request, c.excluded)
	if len(cands) == 0 {
		c.decided = "no candidate"
		c.none = noCandidateReason(task.Task, cons, applies, c.excluded, configured)
		c.reason = c.none
		return c, false
	}

	c.ranked = cands
	if cd := namedCandidate(request, cands); cd != nil {
		// The user chose: not the ranking's or the controller's to
		// overrule, and shown first among the candidates.
		c.choose(cd.model.ID, cd.model.ID+" is the model the request names", "named")
		c.top = infos(c.ranked[:min(len(c.ranked), e.opts.NumCandidates)])
		return c, false
	}
	top := cands[:min(len(cands), e.opts.NumCandidates)]
	c.top = infos(top)
	switch {
	case decidedBy != "":
		c.decided, c.reason = decidedBy, constraintReason(cons, cands[0].model)
	case len(top) == 1:
		c.decided, c.reason = "only candidate", cands[0].model.ID+" is the only model that can run this task now"
	case c.unmet == "" && request != "":
		if why, ok := skipsSelection(e.opts.Selection, s, request, top, localFirst); ok {
			c.decided, c.reason = "ranked", why
			break
		}
		fallthrough
	default:
		c.decided, c.reason = "top-ranked", "the controller would choose among the top "+fmt.Sprint(len(top))+" candidates"
		return c, true
	}
	return c, false
}

// candidates lists the models that can run c's task now, each with its
// ready routes, excluding (into c) those without one and those a licence
// or size constraint rules out. configured holds the ids of models the
// user configured, for the reason when none is left.
func (e *Engine) candidates(ctx context.Context, c *choice, cons Constraints) (cands []*candidate, configured map[string]bool) {
	models, unseen := e.models(ctx, c.skill, c.localOnly)
	c.excluded = append(c.excluded, unseen...)
	configured = map[string]bool{}
	for _, m := range models {
		if m.Configured {
			configured[m.ID] = true
		}
		routes, why := e.readyRoutes(ctx, c.task.Task, m, c.localOnly)
		if len(routes) == 0 {
			c.exclude(m.ID, why)
			continue
		}
		if cons.AppliesTo(c.task.Task) && c.skill.Tool == nil {
			// A tool the user configured as its own skill is the one
			// way to run it: licence and size limits choose among
			// models, and there is nothing to choose.
			if why := constraintRejects(cons, m); why != "" {
				c.exclude(m.ID, why)
				continue
			}
		}
		cd := &candidate{model: m, routes: routes}
		for _, r := range routes {
			if p := plannedProvider(r, c.task.Task, m.ID); p != "" {
				cd.provider = p
				break
			}
		}
		cands = append(cands, cd)
	}
	return cands, configured
}

// applyPreference ranks cands by the smallest-model or best-benchmark
// preference, excluding those it cannot rank, and names what decided;
// without a preference (or a benchmark this skill reports) cands stay as
// they are and decidedBy is "".
func (c *choice) applyPreference(s *skills.Skill, cons Constraints, cands []*candidate) (ranked []*candidate, decidedBy string) {
	switch cons.Prefer {
	case PreferSmallest:
		var kept []*candidate
		for _, cd := range cands {
			if cd.model.Size() > 0 {
				kept = append(kept, cd)
			} else {
				c.exclude(cd.model.ID, "size unknown, so it cannot be shown to be the smallest")
			}
		}
		slices.SortStableFunc(kept, func(a, b *candidate) int { return cmp.Compare(a.model.Size(), b.model.Size()) })
		cands, decidedBy = kept, "constraint: smallest"
	case PreferBest:
		// "Best on Common Voice" speaks about the tasks that have such
		// results; it does not block, say, captioning in the same plan.
		if len(cons.Tasks) > 0 || skillHasBenchmark(s, cons.Benchmark) {
			var kept []*candidate
			for _, cd := range cands {
				if _, ok := BenchmarkScore(cd.model, cons.Benchmark); ok {
					kept = append(kept, cd)
				} else {
					c.exclude(cd.model.ID, fmt.Sprintf("no recorded %q result", cons.Benchmark))
				}
			}
			slices.SortStableFunc(kept, func(a, b *candidate) int { return compareScores(a.model, b.model, cons.Benchmark) })
			cands, decidedBy = kept, "constraint: best "+cons.Benchmark
		} else if len(cands) > 0 {
			// Nothing to rank by: the usual ranking stands, and the
			// event and the report say so rather than pass it off as
			// the best.
			// Named as the user writes it (best=cider:coco).
			c.unmet = fmt.Sprintf("no candidate reports %s — fell back to downloads", strings.ReplaceAll(cons.Benchmark, " ", ":"))
		}
	}
	return cands, decidedBy
}

// plannedProvider names the provider route would try first for model,
// where the endpoint reaches several and can tell without the network;
// "" otherwise.
func plannedProvider(route endpoints.Endpoint, task, model string) string {
	if pn, ok := route.(endpoints.ProviderNamer); ok {
		return pn.Provider(task, model)
	}
	return ""
}

// resolvedProvider names the provider route will try first for model,
// asking what the call itself would ask (the Hub's mapping, cached for
// the call): what a task's start, and a preview, name.
func resolvedProvider(ctx context.Context, route endpoints.Endpoint, task, model string) string {
	if pr, ok := route.(endpoints.ProviderResolver); ok {
		return pr.ResolveProvider(ctx, task, model)
	}
	return plannedProvider(route, task, model)
}

// resolveProviders names, in a preview, the provider each candidate's
// route will try first, asking the Hub as a run would (a few lookups at a
// time, each cached): selection during a turn stays offline and names
// only what is settled.
func resolveProviders(ctx context.Context, c *choice, ev *ModelEvent) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, cd := range c.ranked {
		for _, r := range cd.routes {
			if _, ok := r.(endpoints.ProviderNamer); !ok {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				p := resolvedProvider(ctx, r, c.task.Task, cd.model.ID)
				cd.provider = p
				if i < len(ev.Candidates) {
					ev.Candidates[i].Provider = p
				}
				if i == 0 && ev.Endpoint == string(r.Kind()) {
					ev.Provider = p
				}
			}()
			break
		}
	}
	wg.Wait()
}

// choose puts the candidate id first in c's ranking.
func (c *choice) choose(id, reason, decided string) {
	i := slices.IndexFunc(c.ranked, func(cd *candidate) bool { return strings.EqualFold(cd.model.ID, id) })
	if i < 0 {
		return
	}
	chosen := c.ranked[i]
	rest := append(slices.Clone(c.ranked[:i]), c.ranked[i+1:]...)
	c.ranked = append([]*candidate{chosen}, rest...)
	c.decided, c.reason = decided, reason
}

func (c *choice) exclude(id, why string) {
	c.excluded = append(c.excluded, Exclusion{ID: id, Reason: why})
}

func infos(cs []*candidate) []Candidate {
	out := make([]Candidate, len(cs))
	for i, c := range cs {
		out[i] = c.info()
	}
	return out
}

// Preview runs selection for task without asking the controller: what
// `chorus models list` and the TUI's /models show. The event lists the
// ranked candidates and every excluded model with the reason.
func (e *Engine) Preview(ctx context.Context, task string, cons Constraints) (ModelEvent, error) {
	s, _, ok := e.cat.Resolve(task)
	if !ok {
		return ModelEvent{}, fmt.Errorf("unknown task %q — see `chorus models list` or /skills for the task names", task)
	}
	c, _ := e.selectTask(ctx, Task{Task: s.Name}, cons, "", func(Event) {})
	ev := c.event()
	if !c.controller {
		resolveProviders(ctx, c, &ev)
	}
	return ev, nil
}

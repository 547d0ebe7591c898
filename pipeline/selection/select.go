package selection

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// Select runs selectTask for one task; a bug in selection fails its
// task, not the program.
func (sel *Selector) Select(ctx context.Context, task flow.Task, cons flow.Constraints, request string) (c *flow.Choice, pending bool) {
	defer func() {
		if r := recover(); r != nil {
			c = &flow.Choice{Task: task, Decided: "no candidate"}
			c.None = fmt.Sprintf("internal error while choosing its model: %v — this is a bug in Chorus; please report it", r)
			c.Reason = c.None
			pending = false
		}
	}()
	return sel.selectTask(ctx, task, cons, request)
}

// selectTask applies availability and constraints deterministically and
// ranks what is left. pending is true when more than one candidate remains
// and nothing decided between them: the controller chooses among c.top
// (askModels), c.ranked holding the download ranking meanwhile.
func (sel *Selector) selectTask(ctx context.Context, task flow.Task, cons flow.Constraints, request string) (c *flow.Choice, pending bool) {
	c = &flow.Choice{Task: task}
	s, ok := sel.Catalog.Skill(task.Task)
	if !ok { // validation guarantees this; stay safe anyway
		c.None, c.Decided = "unknown task "+task.Task, "no candidate"
		c.Reason = c.None
		return c, false
	}
	c.Skill = s
	applies := cons.AppliesTo(task.Task)
	c.LocalOnly = cons.LocalOnly && applies

	cands, configured := sel.candidates(ctx, c, cons)
	cands = append(cands, sel.namedFromHub(ctx, c, cons, cands)...)
	slices.SortStableFunc(cands, func(a, b *flow.Option) int { return s.CompareRank(a.Model, b.Model) })
	localFirst := sel.rankLocalFirst(task.Task, cands)

	// The controller does text tasks itself, as HuggingGPT does, unless a
	// licence, size or ranking constraint needs facts the catalog lacks for
	// it, or the request names a model that can run the task.
	if s.Controller && sel.ControllerTasks && namedCandidate(request, cands) == nil {
		if !applies || (len(cons.Licenses) == 0 && cons.MaxSize.IsZero() && cons.Prefer == "") {
			c.Named = namedNotRunning(request, c.Excluded)
			c.Controller, c.ControllerModel, c.Decided = true, sel.Controller.Model(), "controller"
			c.Reason = fmt.Sprintf("the controller (%s) handles %s itself, as HuggingGPT does for text tasks", sel.Controller.Model(), task.Task)
			c.Ranked = cands
			c.Top = infos(cands[:min(len(cands), sel.NumCandidates)])
			return c, false
		}
		exclude(c, sel.Controller.Model()+" (controller)", "its licence and size are not in the catalog, so it cannot be shown to meet the constraints")
	}

	decidedBy := ""
	if applies {
		cands, decidedBy = applyPreference(c, s, cons, cands)
	}

	// A named model that cannot run is said first, whatever decides.
	c.Named = namedNotRunning(request, c.Excluded)
	if len(cands) == 0 {
		c.Decided = "no candidate"
		c.None = noCandidateReason(task.Task, cons, applies, c.Excluded, configured)
		c.Reason = c.None
		return c, false
	}

	c.Ranked = cands
	if cd := namedCandidate(request, cands); cd != nil {
		// The user chose: not the ranking's or the controller's to
		// overrule, and shown first among the candidates.
		choose(c, cd.Model.ID, cd.Model.ID+" is the model the request names", "named")
		c.Top = infos(c.Ranked[:min(len(c.Ranked), sel.NumCandidates)])
		return c, false
	}
	top := cands[:min(len(cands), sel.NumCandidates)]
	c.Top = infos(top)
	switch {
	case decidedBy != "":
		c.Decided, c.Reason = decidedBy, constraintReason(cons, cands[0].Model)
	case len(top) == 1:
		c.Decided, c.Reason = "only candidate", cands[0].Model.ID+" is the only model that can run this task now"
	case c.Unmet == "" && request != "":
		if why, ok := skipsSelection(sel.Mode, s, request, top, localFirst); ok {
			c.Decided, c.Reason = "ranked", why
			break
		}
		fallthrough
	default:
		c.Decided, c.Reason = "top-ranked", "the controller would choose among the top "+fmt.Sprint(len(top))+" candidates"
		return c, true
	}
	return c, false
}

// candidates lists the models that can run c's task now, each with its
// ready routes, excluding (into c) those without one and those a licence
// or size constraint rules out. configured holds the ids of models the
// user configured, for the reason when none is left.
func (sel *Selector) candidates(ctx context.Context, c *flow.Choice, cons flow.Constraints) (cands []*flow.Option, configured map[string]bool) {
	models, unseen := sel.models(ctx, c.Skill, c.LocalOnly)
	c.Excluded = append(c.Excluded, unseen...)
	configured = map[string]bool{}
	for _, m := range models {
		if m.Configured {
			configured[m.ID] = true
		}
		routes, why := sel.readyRoutes(ctx, c.Task.Task, m, c.LocalOnly)
		if len(routes) == 0 {
			exclude(c, m.ID, why)
			continue
		}
		if cons.AppliesTo(c.Task.Task) && c.Skill.Tool == nil {
			// A tool the user configured as its own skill is the one
			// way to run it: licence and size limits choose among
			// models, and there is nothing to choose.
			if why := constraintRejects(cons, m); why != "" {
				exclude(c, m.ID, why)
				continue
			}
		}
		cd := &flow.Option{Model: m, Routes: routes}
		for _, r := range routes {
			if p := flow.PlannedProvider(r, c.Task.Task, m.ID); p != "" {
				cd.Provider = p
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
func applyPreference(c *flow.Choice, s *skills.Skill, cons flow.Constraints, cands []*flow.Option) (ranked []*flow.Option, decidedBy string) {
	switch cons.Prefer {
	case flow.PreferSmallest:
		var kept []*flow.Option
		for _, cd := range cands {
			if cd.Model.Size() > 0 {
				kept = append(kept, cd)
			} else {
				exclude(c, cd.Model.ID, "size unknown, so it cannot be shown to be the smallest")
			}
		}
		slices.SortStableFunc(kept, func(a, b *flow.Option) int { return cmp.Compare(a.Model.Size(), b.Model.Size()) })
		cands, decidedBy = kept, "constraint: smallest"
	case flow.PreferBest:
		// "Best on Common Voice" speaks about the tasks that have such
		// results; it does not block, say, captioning in the same plan.
		if len(cons.Tasks) > 0 || flow.SkillHasBenchmark(s, cons.Benchmark) {
			var kept []*flow.Option
			for _, cd := range cands {
				if _, ok := flow.BenchmarkScore(cd.Model, cons.Benchmark); ok {
					kept = append(kept, cd)
				} else {
					exclude(c, cd.Model.ID, fmt.Sprintf("no recorded %q result", cons.Benchmark))
				}
			}
			slices.SortStableFunc(kept, func(a, b *flow.Option) int { return compareScores(a.Model, b.Model, cons.Benchmark) })
			cands, decidedBy = kept, "constraint: best "+cons.Benchmark
		} else if len(cands) > 0 {
			// Nothing to rank by: the usual ranking stands, and the
			// event and the report say so rather than pass it off as
			// the best.
			// Named as the user writes it (best=cider:coco).
			c.Unmet = fmt.Sprintf("no candidate reports %s — fell back to downloads", strings.ReplaceAll(cons.Benchmark, " ", ":"))
		}
	}
	return cands, decidedBy
}

// choose puts the candidate id first in c's ranking.
func choose(c *flow.Choice, id, reason, decided string) {
	i := slices.IndexFunc(c.Ranked, func(cd *flow.Option) bool { return strings.EqualFold(cd.Model.ID, id) })
	if i < 0 {
		return
	}
	chosen := c.Ranked[i]
	rest := append(slices.Clone(c.Ranked[:i]), c.Ranked[i+1:]...)
	c.Ranked = append([]*flow.Option{chosen}, rest...)
	c.Decided, c.Reason = decided, reason
}

func exclude(c *flow.Choice, id, why string) {
	c.Excluded = append(c.Excluded, flow.Exclusion{ID: id, Reason: why})
}

func infos(cs []*flow.Option) []flow.Candidate {
	out := make([]flow.Candidate, len(cs))
	for i, c := range cs {
		out[i] = c.Info()
	}
	return out
}

// compareScores orders better results first.
func compareScores(a, b skills.Model, query string) int {
	x, _ := flow.BenchmarkScore(a, query)
	y, _ := flow.BenchmarkScore(b, query)
	switch {
	case x.Value == y.Value:
		return 0
	case (x.Value < y.Value) == x.LowerIsBetter:
		return -1
	}
	return 1
}

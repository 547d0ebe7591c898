package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// EndpointController is the endpoint name of tasks the controller runs.
const EndpointController = "controller"

// candidate is a model that can run a task now, with its ready endpoints.
type candidate struct {
	model  skills.Model
	routes []endpoints.Endpoint
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
	return Candidate{ID: c.model.ID, Endpoint: strings.Join(kinds, ","), Downloads: c.model.Downloads,
		License: c.model.License, Size: size, Description: c.model.Description}
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
	// none explains why nothing can run the task; ranked is then empty.
	none string
	// top and excluded are reported in the model event.
	top      []Candidate
	excluded []Exclusion
}

// selectAll chooses a model for every task of the plan, concurrently.
func (e *Engine) selectAll(ctx context.Context, p Plan, t Turn, emit Emit) map[int]*choice {
	out := make(map[int]*choice, len(p.Tasks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, task := range p.Tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := e.selectTask(ctx, task, p.Constraints, t.Request, true, emit)
			mu.Lock()
			out[task.ID] = c
			mu.Unlock()
		}()
	}
	wg.Wait()
	// Emit in plan order so the stream reads the same on every run.
	for _, task := range p.Tasks {
		emit(out[task.ID].event())
	}
	return out
}

func (c *choice) event() ModelEvent {
	ev := ModelEvent{ID: c.task.ID, Task: c.task.Task, Reason: c.reason, Decided: c.decided, Candidates: c.top, Excluded: c.excluded}
	switch {
	case c.controller:
		ev.Model, ev.Endpoint = c.controllerModel, EndpointController
	case len(c.ranked) > 0:
		ev.Model = c.ranked[0].model.ID
		ev.Endpoint = string(c.ranked[0].routes[0].Kind())
	}
	return ev
}

// selectTask applies availability and constraints deterministically, then
// lets the controller choose among the top-K when more than one remains.
func (e *Engine) selectTask(ctx context.Context, task Task, cons Constraints, request string, ask bool, emit Emit) *choice {
	c := &choice{task: task}
	s, ok := e.cat.Skill(task.Task)
	if !ok { // validation guarantees this; stay safe anyway
		c.none, c.decided = "unknown task "+task.Task, "no candidate"
		c.reason = c.none
		return c
	}
	c.skill = s
	applies := cons.AppliesTo(task.Task)
	localOnly := cons.LocalOnly && applies

	var cands []*candidate
	models, unseen := e.models(ctx, s, localOnly)
	c.excluded = append(c.excluded, unseen...)
	for _, m := range models {
		routes, why := e.readyRoutes(ctx, task.Task, m, localOnly)
		if len(routes) == 0 {
			c.exclude(m.ID, why)
			continue
		}
		if applies {
			if why := constraintRejects(cons, m); why != "" {
				c.exclude(m.ID, why)
				continue
			}
		}
		cands = append(cands, &candidate{model: m, routes: routes})
	}
	cands = rankDownloads(cands)

	// The controller does text tasks itself, as HuggingGPT does, unless a
	// licence, size or ranking constraint needs facts the catalog lacks for it.
	if s.Controller && e.opts.ControllerTasks {
		if !applies || (len(cons.Licenses) == 0 && cons.MaxSize.IsZero() && cons.Prefer == "") {
			c.controller, c.controllerModel, c.decided = true, e.ctl.Model(), "controller"
			c.reason = fmt.Sprintf("the controller (%s) handles %s itself, as HuggingGPT does for text tasks", e.ctl.Model(), task.Task)
			c.ranked = cands
			c.top = infos(cands[:min(len(cands), e.opts.NumCandidates)])
			return c
		}
		c.exclude(e.ctl.Model()+" (controller)", "its licence and size are not in the catalog, so it cannot be shown to meet the constraints")
	}

	decidedBy := ""
	if applies {
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
			}
		}
	}

	if len(cands) == 0 {
		c.decided = "no candidate"
		c.none = noCandidateReason(task.Task, cons, applies, c.excluded)
		c.reason = c.none
		emit(ErrorEvent{Stage: StageSelection, Message: fmt.Sprintf("task %d (%s) will not run: %s", task.ID, task.Task, c.none)})
		return c
	}

	top := cands[:min(len(cands), e.opts.NumCandidates)]
	c.top = infos(top)
	switch {
	case decidedBy != "":
		c.decided, c.reason = decidedBy, constraintReason(cons, cands[0].model)
	case len(top) == 1:
		c.decided, c.reason = "only candidate", cands[0].model.ID+" is the only model that can run this task now"
	case !ask:
		c.decided, c.reason = "top-ranked", "the controller would choose among the top "+fmt.Sprint(len(top))+" candidates"
	default:
		id, reason, how := e.askModel(ctx, task, request, top, emit)
		i := slices.IndexFunc(cands, func(cd *candidate) bool { return cd.model.ID == id })
		chosen := cands[i]
		rest := append(slices.Clone(cands[:i]), cands[i+1:]...)
		cands = append([]*candidate{chosen}, rest...)
		c.decided, c.reason = how, reason
	}
	c.ranked = cands
	return c
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

func rankDownloads(cs []*candidate) []*candidate {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b *candidate) int { return cmp.Compare(b.model.Downloads, a.model.Downloads) })
	return out
}

// models lists the catalog's candidates for s plus those endpoints discover
// (pulled Ollama models), without duplicates. An endpoint that cannot say
// what it offers (Ollama not running) comes back as an exclusion with its
// reason, so a missing model is explained rather than silently absent.
func (e *Engine) models(ctx context.Context, s *skills.Skill, localOnly bool) ([]skills.Model, []Exclusion) {
	out := slices.Clone(s.Models)
	var unseen []Exclusion
	seen := map[string]bool{}
	for _, m := range out {
		seen[strings.ToLower(m.ID)] = true
	}
	for _, d := range e.router.Discoverers(localOnly) {
		kind := "discovered"
		if ep, ok := d.(endpoints.Endpoint); ok {
			kind = string(ep.Kind())
		}
		offers, err := d.Discover(ctx, s.Name)
		if err != nil {
			if ctx.Err() == nil {
				unseen = append(unseen, Exclusion{ID: "(" + kind + " models)", Reason: "cannot list them: " + err.Error()})
			}
			continue
		}
		for _, o := range offers {
			if seen[strings.ToLower(o.ID)] {
				continue
			}
			seen[strings.ToLower(o.ID)] = true
			out = append(out, skills.Model{ID: o.ID, Description: o.Description, Params: o.Params, SizeBytes: o.SizeBytes,
				License: o.License, Endpoints: []string{kind}})
		}
	}
	return out, unseen
}

// readyRoutes returns the endpoints that can serve m for task now, local
// first, or why none can.
func (e *Engine) readyRoutes(ctx context.Context, task string, m skills.Model, localOnly bool) ([]endpoints.Endpoint, string) {
	routes := e.router.Routes(m, localOnly)
	if len(routes) == 0 {
		return nil, e.noRouteReason(m, localOnly)
	}
	var ready []endpoints.Endpoint
	var why []string
	for _, r := range routes {
		if err := r.Check(ctx, task, m.ID); err != nil {
			why = append(why, err.Error())
			continue
		}
		ready = append(ready, r)
	}
	return ready, strings.Join(why, "; ")
}

func (e *Engine) noRouteReason(m skills.Model, localOnly bool) string {
	var parts []string
	for _, k := range m.Endpoints {
		kind := endpoints.Kind(k)
		_, configured := e.router.Endpoint(kind)
		switch {
		case kind == endpoints.HuggingFace && localOnly:
			parts = append(parts, "the local-only constraint rules out Hugging Face")
		case !e.router.Allowed(kind, false):
			parts = append(parts, fmt.Sprintf("inference_mode %s rules out %s endpoints", e.router.Mode(), k))
		case !configured && kind == endpoints.Local:
			parts = append(parts, "needs a local inference server (set local.url)")
		case !configured:
			parts = append(parts, fmt.Sprintf("no %s endpoint is configured", k))
		}
	}
	if len(parts) == 0 {
		return "no endpoint can serve it"
	}
	return strings.Join(parts, "; ")
}

// constraintRejects says why m breaks a licence or size constraint.
func constraintRejects(cons Constraints, m skills.Model) string {
	if len(m.Endpoints) == 1 && m.Endpoints[0] == skills.EndpointBuiltin {
		// Built-in tools are Chorus's own code, not third-party models:
		// licence and size limits are about the latter.
		return ""
	}
	if len(cons.Licenses) > 0 && !containsFold(cons.Licenses, m.License) {
		if m.License == "" {
			return "licence unknown, so it cannot be shown to be in the allow-list (" + strings.Join(cons.Licenses, ", ") + ")"
		}
		return fmt.Sprintf("licence %s is not in the allow-list (%s)", m.License, strings.Join(cons.Licenses, ", "))
	}
	if !cons.MaxSize.IsZero() && !cons.MaxSize.Allows(m) {
		if m.Size() == 0 {
			return "size unknown, so it cannot be shown to fit max-size " + cons.MaxSize.String()
		}
		return fmt.Sprintf("%s exceeds max-size %s", m.HumanSize(), cons.MaxSize.String())
	}
	return ""
}

func constraintReason(cons Constraints, m skills.Model) string {
	switch cons.Prefer {
	case PreferSmallest:
		return fmt.Sprintf("%s is the smallest qualifying model (%s)", m.ID, m.HumanSize())
	case PreferBest:
		b, _ := BenchmarkScore(m, cons.Benchmark)
		return fmt.Sprintf("%s has the best recorded %s %s: %g on %s", m.ID, b.Dataset, b.Metric, b.Value, b.Dataset)
	}
	return ""
}

func noCandidateReason(task string, cons Constraints, applies bool, excluded []Exclusion) string {
	if len(excluded) == 0 {
		return "the catalog has no model for " + task
	}
	var b strings.Builder
	if applies && !cons.IsZero() {
		b.WriteString("no model satisfies the constraints (" + cons.String() + ")")
	} else {
		b.WriteString("no model can run it now")
	}
	b.WriteString(": ")
	for i, x := range excluded {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 4 {
			fmt.Fprintf(&b, "and %d more", len(excluded)-4)
			break
		}
		b.WriteString(x.ID + " — " + x.Reason)
	}
	return b.String()
}

// benchmarkWords splits a benchmark description into comparable words.
func benchmarkWords(s string) []string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("_", " ", "-", " ", "/", " ", ":", " ", ",", " ", "(", " ", ")", " ").Replace(s)
	var out []string
	for _, w := range strings.Fields(s) {
		switch w {
		case "english":
			w = "en"
		case "on", "the", "score", "best", "of", "a":
			continue
		}
		out = append(out, w)
	}
	return out
}

// BenchmarkScore finds m's recorded result matching query ("common_voice
// wer"): every word of the query must appear in the result's dataset or
// metric.
func BenchmarkScore(m skills.Model, query string) (skills.Benchmark, bool) {
	want := benchmarkWords(query)
	if len(want) == 0 {
		return skills.Benchmark{}, false
	}
	for _, b := range m.Benchmarks {
		have := benchmarkWords(b.Dataset + " " + b.Metric)
		all := true
		for _, w := range want {
			if !slices.ContainsFunc(have, func(h string) bool { return h == w || (len(w) > 3 && strings.HasPrefix(h, w)) }) {
				all = false
				break
			}
		}
		if all {
			return b, true
		}
	}
	return skills.Benchmark{}, false
}

func skillHasBenchmark(s *skills.Skill, query string) bool {
	return slices.ContainsFunc(s.Models, func(m skills.Model) bool {
		_, ok := BenchmarkScore(m, query)
		return ok
	})
}

// compareScores orders better results first.
func compareScores(a, b skills.Model, query string) int {
	x, _ := BenchmarkScore(a, query)
	y, _ := BenchmarkScore(b, query)
	switch {
	case x.Value == y.Value:
		return 0
	case (x.Value < y.Value) == x.LowerIsBetter:
		return -1
	}
	return 1
}

const selectSystem = `#2 Model Selection Stage
Given the user request and a task parsed from it, select the most suitable model for the task from the list
of candidates. Consider each model's description, how widely it is used (downloads), where it runs and its
size. Reply in strict JSON: {"id": "the model id", "reason": "a short reason for the choice"}.`

var idField = regexp.MustCompile(`"id"\s*:\s*"([^"]+)"`)

// askModel lets the controller pick among several candidates. A reply that
// names no candidate falls back to the top-ranked one, and says so.
func (e *Engine) askModel(ctx context.Context, task Task, request string, top []*candidate, emit Emit) (id, reason, decided string) {
	ids := make([]string, len(top))
	for i, c := range top {
		ids[i] = c.model.ID
	}
	list, _ := json.MarshalIndent(infos(top), "", " ")
	args, _ := json.Marshal(task.Args)
	user := fmt.Sprintf("User request: %s\nTask: %s with arguments %s\nCandidate models:\n%s\nPick one.", request, task.Task, args, list)
	schema, _ := json.Marshal(map[string]any{
		"type":       "object",
		"properties": map[string]any{"id": map[string]any{"type": "string", "enum": ids}, "reason": map[string]any{"type": "string"}},
		"required":   []string{"id", "reason"},
	})
	emit(DebugEvent{Stage: StageSelection, Kind: "prompt", Content: user})
	reply, err := e.ctl.Chat(ctx, controller.ChatCall{
		Messages:   []controller.Message{{Role: "system", Content: selectSystem}, {Role: "user", Content: user}},
		Format:     schema,
		NumPredict: 256,
	})
	fallback := func(why string) (string, string, string) {
		return ids[0], fmt.Sprintf("%s; using the most downloaded candidate, %s", why, ids[0]), "fallback: top-ranked"
	}
	if err != nil {
		return fallback("the controller could not choose (" + err.Error() + ")")
	}
	emit(DebugEvent{Stage: StageSelection, Kind: "reply", Content: reply.Content})
	var pick struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
	}
	if v, err := extractJSON(reply.Content); err == nil {
		b, _ := json.Marshal(v)
		_ = json.Unmarshal(b, &pick)
	} else if m := idField.FindStringSubmatch(reply.Content); m != nil {
		pick.ID = m[1] // a reply cut off inside its reason still names the model
	}
	pick.ID = strings.TrimSpace(pick.ID)
	for _, cand := range ids {
		if strings.EqualFold(cand, pick.ID) {
			r := strings.TrimSpace(pick.Reason)
			if r == "" {
				r = "chosen by the controller"
			}
			return cand, r, "controller choice"
		}
	}
	if pick.ID == "" {
		return fallback("the controller's reply named no model")
	}
	return fallback(fmt.Sprintf("the controller chose %q, which is not a candidate", pick.ID))
}

// Preview runs selection for task without asking the controller: what
// `chorus models list` and the TUI's /models show. The event lists the
// ranked candidates and every excluded model with the reason.
func (e *Engine) Preview(ctx context.Context, task string, cons Constraints) (ModelEvent, error) {
	s, _, ok := e.cat.Resolve(task)
	if !ok {
		return ModelEvent{}, fmt.Errorf("unknown task %q — see `chorus models list` or /skills for the task names", task)
	}
	c := e.selectTask(ctx, Task{Task: s.Name}, cons, "", false, func(Event) {})
	return c.event(), nil
}

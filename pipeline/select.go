package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
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
	ev := ModelEvent{ID: c.task.ID, Task: c.task.Task, Reason: c.reason, Decided: c.decided, Candidates: c.top, Excluded: c.excluded, Unmet: c.unmet}
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
	localOnly := cons.LocalOnly && applies
	c.localOnly = localOnly

	var cands []*candidate
	models, unseen := e.models(ctx, s, localOnly)
	c.excluded = append(c.excluded, unseen...)
	configured := map[string]bool{}
	for _, m := range models {
		if m.Configured {
			configured[m.ID] = true
		}
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
		cd := &candidate{model: m, routes: routes}
		for _, r := range routes {
			if p := plannedProvider(r, task.Task, m.ID); p != "" {
				cd.provider = p
				break
			}
		}
		cands = append(cands, cd)
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int { return s.CompareRank(a.model, b.model) })

	// The controller does text tasks itself, as HuggingGPT does, unless a
	// licence, size or ranking constraint needs facts the catalog lacks for it.
	if s.Controller && e.opts.ControllerTasks {
		if !applies || (len(cons.Licenses) == 0 && cons.MaxSize.IsZero() && cons.Prefer == "") {
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
	}

	if len(cands) == 0 {
		c.decided = "no candidate"
		c.none = noCandidateReason(task.Task, cons, applies, c.excluded, configured)
		c.reason = c.none
		return c, false
	}

	top := cands[:min(len(cands), e.opts.NumCandidates)]
	c.top = infos(top)
	c.ranked = cands
	switch {
	case decidedBy != "":
		c.decided, c.reason = decidedBy, constraintReason(cons, cands[0].model)
	case len(top) == 1:
		c.decided, c.reason = "only candidate", cands[0].model.ID+" is the only model that can run this task now"
	case c.unmet == "" && request != "":
		if why, ok := skipsSelection(e.opts.Selection, s, request, top); ok {
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

// plannedProvider names the provider route would try first for model,
// where the endpoint reaches several; "" otherwise.
func plannedProvider(route endpoints.Endpoint, task, model string) string {
	if pn, ok := route.(endpoints.ProviderNamer); ok {
		return pn.Provider(task, model)
	}
	return ""
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

// models lists the catalog's candidates for s plus those endpoints discover
// (pulled Ollama models, OpenAI-compatible servers' models), without
// duplicates: a catalog model an endpoint also offers gains its route. An
// endpoint that cannot say what it offers (Ollama not running) comes back
// as an exclusion with its reason, so a missing model is explained rather
// than silently absent.
func (e *Engine) models(ctx context.Context, s *skills.Skill, localOnly bool) ([]skills.Model, []Exclusion) {
	out := slices.Clone(s.Models)
	var unseen []Exclusion
	seen := map[string]int{} // lower-case id → index in out
	for i, m := range out {
		seen[strings.ToLower(m.ID)] = i
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
			if i, ok := seen[strings.ToLower(o.ID)]; ok {
				// A model the catalog lists that this endpoint also
				// serves (a vLLM server with openai/whisper-large-v3)
				// gains the route and keeps the catalog's facts; the
				// catalog's slice is not touched.
				m := &out[i]
				if !m.ServedBy(kind) {
					m.Endpoints = append(slices.Clone(m.Endpoints), kind)
				}
				m.Configured = m.Configured || o.Configured
				continue
			}
			seen[strings.ToLower(o.ID)] = len(out)
			out = append(out, skills.Model{ID: o.ID, Description: o.Description, Params: o.Params, SizeBytes: o.SizeBytes,
				License: o.License, Endpoints: []string{kind}, Configured: o.Configured})
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
		// A kind whose servers may be anywhere (openai) says per model
		// whether this one is local; the router cannot tell by kind.
		if loc, ok := r.(endpoints.Locator); ok && localOnly {
			if remote := loc.Remote(task, m.ID); remote != "" {
				why = append(why, "the local-only constraint rules out "+remote)
				continue
			}
		}
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
		case kind == endpoints.Retrieval && configured && (localOnly || e.router.Mode() == endpoints.ModeLocal):
			// Name the rule that applies, not both: the fix differs.
			rule := "the local-only constraint rules"
			if e.router.Mode() == endpoints.ModeLocal {
				rule = "inference_mode local rules"
				if localOnly {
					rule = "inference_mode local and the local-only constraint rule"
				}
			}
			parts = append(parts, "it is a web lookup, which "+rule+" out — set retrieval.searxng_url to a SearxNG on this machine or network to look things up there")
		case kind == endpoints.Retrieval && !configured:
			parts = append(parts, "retrieval is off — set retrieval.wikipedia_url or retrieval.searxng_url")
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

// noCandidateReason says why no model can run task. Its example is a model
// the user configured (an openai server's, say) where one was excluded:
// that is the exclusion they meant to work and can fix, while the
// catalog's are listed first and would hide it.
func noCandidateReason(task string, cons Constraints, applies bool, excluded []Exclusion, configured map[string]bool) string {
	if len(excluded) == 0 {
		return "the catalog has no model for " + task
	}
	var b strings.Builder
	if applies && !cons.IsZero() {
		b.WriteString("no model satisfies the constraints (" + cons.String() + ")")
	} else {
		b.WriteString("no model can run it now")
	}
	// Short: this reason is shown wherever the task is (the Models and
	// Execution panes, the log, the answer's workflow). The model event
	// carries every exclusion for whoever wants the whole list.
	x := excluded[0]
	if i := slices.IndexFunc(excluded, func(x Exclusion) bool { return configured[x.ID] }); i >= 0 {
		x = excluded[i]
	}
	switch len(excluded) {
	case 1:
		fmt.Fprintf(&b, ": %s — %s", x.ID, text.Clip(x.Reason, 160))
	default:
		fmt.Fprintf(&b, ": %d models excluded, e.g. %s — %s", len(excluded), x.ID, text.Clip(x.Reason, 120))
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

var idField = regexp.MustCompile(`"(?:model|id)"\s*:\s*"([^"]+)"`)

// maxSelectArg bounds, in characters, an argument quoted in the selection
// prompt: the controller needs to know what a task is about, not to read
// a whole document again.
const maxSelectArg = 160

// maxReason bounds, in characters, the reason the controller gives for a
// choice: it is decoded token by token while every task waits.
const maxReason = 80

// askModels lets the controller choose for every pending task in one call,
// after the plan in the same conversation. Candidates are numbered per task
// and the reply names them by number — a digit instead of a model id keeps
// the reply, which every waiting task pays for in decode time, short. A task
// it names no candidate for keeps the top-ranked model, and its reason says
// so. Each choice is handed to publish as soon as the streamed reply holds
// it whole, so a task starts while the controller is still writing the
// choices after its own; publish is called once for every task of ask.
func (e *Engine) askModels(ctx context.Context, request string, ask []*choice, conv *conversation, emit Emit, publish func(*choice)) {
	var b strings.Builder
	ids := make([]int, len(ask))
	most := 0
	for i, c := range ask {
		ids[i] = c.task.ID
		args := make([]string, 0, len(c.task.Args))
		for _, k := range sortedKeys(c.task.Args) {
			args = append(args, k+"="+text.OneLine(c.task.Args[k], maxSelectArg))
		}
		fmt.Fprintf(&b, "Task %d %s (%s):\n", c.task.ID, c.task.Task, strings.Join(args, ", "))
		shown := c.ranked[:min(len(c.ranked), e.opts.NumCandidates)]
		most = max(most, len(shown))
		for n, cd := range shown {
			info := cd.info()
			facts := []string{info.Endpoint}
			if info.Downloads > 0 {
				facts = append(facts, skills.HumanCount(info.Downloads)+" downloads")
			}
			if info.License != "" {
				facts = append(facts, info.License)
			}
			if info.Size != "" {
				facts = append(facts, info.Size)
			}
			fmt.Fprintf(&b, "%d. %s (%s): %s\n", n+1, info.ID, strings.Join(facts, ", "), text.OneLine(info.Description, 120))
		}
	}
	picks := make([]int, most)
	for i := range picks {
		picks[i] = i + 1
	}
	msg := stageMessage(markSelect, "Request: "+text.OneLine(request, 600)+"\n"+b.String()+
		`Reply {"choices":[{"id":task id,"pick":candidate number,"reason":"short"}]}.`)
	schema, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{"choices": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"id":     map[string]any{"type": "integer", "enum": ids},
					"pick":   map[string]any{"type": "integer", "enum": picks},
					"reason": map[string]any{"type": "string", "maxLength": maxReason},
				},
				"required": []string{"id", "pick", "reason"},
			},
		}},
		"required": []string{"choices"},
	})
	emit(DebugEvent{Stage: StageSelection, Kind: "prompt", Content: msg.Content})
	published := make([]bool, len(ask))
	stream := choiceStream{onPick: func(p choicePick) {
		i := slices.IndexFunc(ask, func(c *choice) bool { return c.task.ID == p.ID })
		if i < 0 || published[i] || !e.applyPick(ask[i], p) {
			return // the end of the reply decides for it
		}
		published[i] = true
		publish(ask[i])
	}}
	start := time.Now()
	reply, err := e.ctl.Chat(ctx, controller.ChatCall{Messages: conv.with(msg), Format: schema, NumPredict: 48 + 48*len(ask), OnToken: stream.write})
	fallback := func(c *choice, why string) {
		top := c.ranked[0].model.ID
		c.decided, c.reason = "fallback: top-ranked", fmt.Sprintf("%s; using the top-ranked candidate, %s", why, top)
	}
	// Whatever happens below, every task waiting for its choice gets one.
	defer func() {
		for i, c := range ask {
			if !published[i] {
				publish(c)
			}
		}
	}()
	if err != nil {
		for i, c := range ask {
			if !published[i] {
				fallback(c, "the controller could not choose ("+err.Error()+")")
			}
		}
		return
	}
	conv.record(StageSelection, reply, time.Since(start), emit)
	conv.add(msg, controller.Message{Role: "assistant", Content: reply.Content})
	emit(DebugEvent{Stage: StageSelection, Kind: "reply", Content: reply.Content})
	got := parseChoices(reply.Content)
	for n, c := range ask {
		if published[n] {
			continue
		}
		pick, ok := got[c.task.ID]
		switch {
		case !ok && len(ask) == 1 && len(got) == 0:
			// A reply cut off inside its reason still names the model.
			if m := idField.FindStringSubmatch(reply.Content); m != nil {
				pick, ok = choicePick{Model: m[1]}, true
			}
		case !ok && len(ask) == 1 && len(got) == 1:
			for _, p := range got { // one task asked, one answer under another id
				pick, ok = p, true
			}
		}
		switch {
		case !ok || pick.Pick <= 0 && strings.TrimSpace(pick.Model) == "":
			fallback(c, "the controller's reply named no model for it")
		case !e.applyPick(c, pick):
			what := pick.Model
			if pick.Pick > 0 {
				what = fmt.Sprintf("candidate %d of %d", pick.Pick, min(len(c.ranked), e.opts.NumCandidates))
			}
			fallback(c, fmt.Sprintf("the controller chose %q, which is not a candidate", text.Clip(what, 80)))
		}
	}
}

// applyPick makes the controller's pick c's choice and reports whether it
// named one of the candidates the controller was shown.
func (e *Engine) applyPick(c *choice, pick choicePick) bool {
	shown := c.ranked[:min(len(c.ranked), e.opts.NumCandidates)]
	i := -1
	switch {
	case pick.Pick > 0:
		i = pick.Pick - 1
	case strings.TrimSpace(pick.Model) != "":
		i = slices.IndexFunc(shown, func(cd *candidate) bool { return strings.EqualFold(cd.model.ID, strings.TrimSpace(pick.Model)) })
	}
	if i < 0 || i >= len(shown) {
		return false
	}
	reason := text.OneLine(pick.Reason, 2*maxReason)
	if reason == "" {
		reason = "chosen by the controller"
	}
	c.choose(shown[i].model.ID, reason, "controller choice")
	return true
}

// choicePick is one entry of a selection reply: a task id and the
// candidate's number (Pick, from 1) or, from a model that ignored the
// numbering, its id (Model).
type choicePick struct {
	ID     int
	Pick   int
	Model  string
	Reason string
}

// parseChoices reads a selection reply leniently: {"choices":[…]}, a bare
// list, or a single choice object; a task id written as a string; and the
// one-task form {"id": "model", "reason": …} that models trained on
// HuggingGPT's prompt write (for which the id is -1: whichever task asked).
func parseChoices(reply string) map[int]choicePick {
	out := map[int]choicePick{}
	v, err := extractJSON(reply)
	if err != nil {
		return out
	}
	var list []any
	switch x := v.(type) {
	case map[string]any:
		if l, ok := x["choices"].([]any); ok {
			list = l
		} else {
			list = []any{x}
		}
	case []any:
		list = x
	}
	for _, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			continue
		}
		p := choicePick{ID: -1}
		p.Model, _ = obj["model"].(string)
		p.Reason, _ = obj["reason"].(string)
		switch n := obj["pick"].(type) {
		case float64:
			p.Pick = int(n)
		case string:
			p.Pick, _ = strconv.Atoi(strings.TrimSpace(n))
		}
		switch id := obj["id"].(type) {
		case float64:
			p.ID = int(id)
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(id)); err == nil {
				p.ID = n
			} else if p.Model == "" {
				p.Model = id
			}
		}
		if p.Model == "" && p.Pick <= 0 {
			continue
		}
		if _, seen := out[p.ID]; !seen {
			out[p.ID] = p
		}
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
	return c.event(), nil
}

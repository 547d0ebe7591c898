package huggingface

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// MappingSource says which Inference Providers serve a model, in the
// user's order: the Hub's inferenceProviderMapping (*skills.Hub).
type MappingSource interface {
	ProviderMapping(ctx context.Context, model string) ([]skills.Provider, error)
}

// route is one way to run a model: a provider and the id it knows the
// model by.
type route struct {
	// provider is the Inference Provider, or ProviderAuto for the
	// router's own choice (chat only).
	provider string
	// id is the provider's id for the model.
	id string
	// hub is the model's Hub id.
	hub string
	// hubTask is the Hub task the provider serves the model for ("" when
	// not known).
	hubTask string
	// adapter and adapterWeights describe a LoRA the provider applies.
	adapter, adapterWeights string
}

// Timings of the live mapping cache.
const (
	// mappingTTL is how long a mapping the Hub gave is used before it is
	// asked again: long enough that a turn asks once per model, short
	// enough that a long session follows the Hub.
	mappingTTL = 10 * time.Minute
	// mappingFailTTL is how long a failed lookup is not repeated, so an
	// unreachable Hub costs one timeout, not one per call.
	mappingFailTTL = time.Minute
	// mappingTimeout bounds one lookup.
	mappingTimeout = 10 * time.Second
)

// mappings resolves a model to its routes: the providers that serve it
// live — as the Hub says now (asked when a model runs, cached), else as
// the catalog knows them (curated or synced) — ordered and filtered by
// huggingface.providers.
type mappings struct {
	order []string
	hub   MappingSource
	known map[string][]skills.Provider // by lower-case Hub id

	mu   sync.Mutex
	live map[string]*lookup
}

// lookup is one Hub lookup, shared by the calls that need it at once.
type lookup struct {
	done      chan struct{}
	providers []skills.Provider
	err       error
	at        time.Time
}

func newMappings(order []string, hub MappingSource, known map[string][]skills.Provider) *mappings {
	m := &mappings{order: normalizeOrder(order), hub: hub, known: map[string][]skills.Provider{}, live: map[string]*lookup{}}
	for id, ps := range known {
		m.known[strings.ToLower(id)] = slices.Clone(ps)
	}
	return m
}

// normalizeOrder trims and lower-cases the configured providers, drops
// duplicates, and makes an empty list "auto".
func normalizeOrder(order []string) []string {
	var out []string
	for _, p := range order {
		p = strings.ToLower(strings.TrimSpace(p))
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return []string{ProviderAuto}
	}
	return out
}

// current returns what is known about model's providers without asking
// the Hub: a fresh live answer, else the catalog's. known is false when
// neither says anything.
func (m *mappings) current(model string) (ps []skills.Provider, known bool) {
	key := strings.ToLower(model)
	m.mu.Lock()
	l := m.live[key]
	m.mu.Unlock()
	if l != nil && l.ready() {
		switch {
		case l.err == nil && time.Since(l.at) < mappingTTL:
			return l.providers, true
		case errors.Is(l.err, skills.ErrHubNotFound) && time.Since(l.at) < mappingFailTTL:
			// The Hub does not know the model: no provider serves it,
			// whatever the catalog remembers.
			return nil, true
		}
	}
	if ps, ok := m.known[key]; ok {
		return ps, true
	}
	return nil, false
}

func (l *lookup) ready() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// settled reports whether what is known without the network is what a
// call of model for task would use: there is no Hub to ask, nothing to
// ask it (the router's own choice for chat), or its answer (or failure)
// for the model is in and fresh.
func (m *mappings) settled(task, model string) bool {
	if m.hub == nil || m.routerChat(task) {
		return true
	}
	m.mu.Lock()
	l := m.live[strings.ToLower(model)]
	m.mu.Unlock()
	if l == nil || !l.ready() {
		return false
	}
	ttl := mappingTTL
	if l.err != nil {
		ttl = mappingFailTTL
	}
	return time.Since(l.at) < ttl
}

// routerChat reports whether the router itself chooses the provider of
// task: chat under huggingface.providers [auto].
func (m *mappings) routerChat(task string) bool {
	return slices.Contains(chatTasks, task) && len(m.order) == 1 && m.order[0] == ProviderAuto
}

// ask returns the Hub's answer for model, asking at most once per TTL
// (once per failure TTL after a failure) however many calls want it.
func (m *mappings) ask(ctx context.Context, model string) ([]skills.Provider, error) {
	if m.hub == nil {
		return nil, errors.New("no Hub to ask")
	}
	key := strings.ToLower(model)
	m.mu.Lock()
	l := m.live[key]
	if l != nil && l.ready() {
		ttl := mappingTTL
		if l.err != nil {
			ttl = mappingFailTTL
		}
		if time.Since(l.at) >= ttl {
			l = nil
		}
	}
	if l == nil {
		l = &lookup{done: make(chan struct{})}
		m.live[key] = l
		go func() {
			// Not the caller's context: a cancelled turn must not leave
			// a failure that the next turn would believe.
			lctx, cancel := context.WithTimeout(context.Background(), mappingTimeout)
			defer cancel()
			ps, err := m.hub.ProviderMapping(lctx, model)
			m.mu.Lock()
			l.providers, l.err, l.at = ps, err, time.Now()
			m.mu.Unlock()
			close(l.done)
		}()
	}
	m.mu.Unlock()
	select {
	case <-l.done:
		m.mu.Lock()
		defer m.mu.Unlock()
		return l.providers, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// routes returns the ways to run model for task, in the order they are
// tried, or why there is none. With live set it first asks the Hub which
// providers serve the model now (as the official client does before a
// call); without, it uses what is known, so selection stays offline.
func (m *mappings) routes(ctx context.Context, task, model string, live bool) ([]route, string) {
	ps, known := m.current(model)
	chat := slices.Contains(chatTasks, task)
	if m.routerChat(task) {
		// The router chooses for chat: nothing to ask the Hub, as the
		// official client skips the lookup for "auto" chat.
		live = false
	}
	var hubErr error
	if live && m.hub != nil {
		got, err := m.ask(ctx, model)
		switch {
		case err == nil:
			ps, known = got, true
		case errors.Is(err, skills.ErrHubNotFound):
			ps, known = nil, true
			hubErr = err
		default:
			hubErr = err // what the catalog knows stands in
		}
	}
	var served []route
	for _, p := range ps {
		if !p.Live() || protocolFor(p.Name, task) == nil {
			continue
		}
		if p.Task != "" && p.Name != ProviderHFInference && !slices.Contains(hubTasks(task), p.Task) {
			continue
		}
		served = append(served, route{provider: p.Name, id: p.ProviderID(model), hub: model, hubTask: p.Task,
			adapter: p.Adapter, adapterWeights: p.AdapterWeightsPath})
	}
	anyLive := slices.ContainsFunc(ps, skills.Provider.Live)
	var out []route
	add := func(r route) {
		if !slices.ContainsFunc(out, func(o route) bool { return o.provider == r.provider }) {
			out = append(out, r)
		}
	}
	for _, name := range m.order {
		switch {
		case name == ProviderAuto && chat && (!known || anyLive):
			// The router picks among every provider that serves the
			// model, in the user's order, as the official client's
			// "auto" does for chat.
			add(route{provider: ProviderAuto, id: model, hub: model})
		case name == ProviderAuto && known:
			for _, r := range served {
				add(r)
			}
		case name == ProviderAuto || (name == ProviderHFInference && !known):
			// Nothing says who serves the model: Hugging Face's own
			// provider knows it by its Hub id, as before providers.
			if protocolFor(ProviderHFInference, task) != nil {
				add(route{provider: ProviderHFInference, id: model, hub: model})
			}
		default:
			for _, r := range served {
				if r.provider == name {
					add(r)
				}
			}
		}
	}
	if len(out) > 0 {
		return out, ""
	}
	return nil, m.noRoute(task, model, ps, known, served, hubErr)
}

// noRoute explains why no configured provider can run model for task.
func (m *mappings) noRoute(task, model string, ps []skills.Provider, known bool, served []route, hubErr error) string {
	allowed := strings.Join(m.order, ", ")
	var live []string
	for _, p := range ps {
		if p.Live() && !slices.Contains(live, p.Name) {
			live = append(live, p.Name)
		}
	}
	switch {
	case errors.Is(hubErr, skills.ErrHubNotFound):
		return fmt.Sprintf("the Hugging Face Hub does not know %s (or hides it from this token), so no Inference Provider serves it", model)
	case !known && hubErr != nil:
		return fmt.Sprintf("which Inference Providers serve %s is not known (%v), and huggingface.providers (%s) does not include hf-inference, which needs no lookup — run `chorus models sync` or add hf-inference", model, hubErr, allowed)
	case !known:
		return fmt.Sprintf("which Inference Providers serve %s is not known and huggingface.providers (%s) does not include hf-inference, which needs no lookup — run `chorus models sync` or add hf-inference", model, allowed)
	case len(live) == 0:
		return fmt.Sprintf("no Inference Provider serves %s live (the Hub lists none) — pick another model or run it on a local endpoint", model)
	case len(served) == 0:
		return fmt.Sprintf("%s is served by %s, which Chorus cannot call for %s (it calls %s)", model, strings.Join(live, ", "), task, strings.Join(providersFor(task), ", "))
	}
	var names []string
	for _, r := range served {
		names = append(names, r.provider)
	}
	return fmt.Sprintf("%s is served for %s by %s, none of which is in huggingface.providers (%s) — add one, or auto", model, task, strings.Join(names, ", "), allowed)
}

// providersFor lists the providers Chorus can send task to.
func providersFor(task string) []string {
	var out []string
	for _, p := range endpoints.InferenceProviders {
		if protocolFor(p, task) != nil {
			out = append(out, p)
		}
	}
	return out
}

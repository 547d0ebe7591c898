package ollama

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/chattask"
)

// showParallel bounds concurrent /api/show calls while building the
// inventory; Ollama answers them from disk, but a long model list should
// not open dozens of connections at once.
const showParallel = 4

// inventory returns the pulled models by modelKey, from the cache when it
// is fresh. fresh reports whether this call fetched it.
func (e *Endpoint) inventory(ctx context.Context) (inv map[string]pulledModel, fresh bool, err error) {
	if e.hostErr != nil {
		return nil, false, e.hostErr
	}
	if inv, err, ok := e.cached(); ok {
		return inv, false, err
	}
	e.refresh.Lock()
	defer e.refresh.Unlock()
	if inv, err, ok := e.cached(); ok { // another caller refreshed it meanwhile
		return inv, false, err
	}
	e.mu.Lock()
	old := e.inv
	e.mu.Unlock()

	inv, err = e.fetchInventory(ctx, old)
	if ctx.Err() != nil {
		return nil, false, ctx.Err() // our caller gave up; that says nothing about Ollama
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.invAt = e.opts.Now()
	if err != nil {
		e.invErr = err
		return nil, true, err
	}
	e.inv, e.invErr = inv, nil
	return inv, true, nil
}

// cached returns the cached inventory or failure while it is fresh.
func (e *Endpoint) cached() (map[string]pulledModel, error, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.invAt.IsZero() {
		return nil, nil, false
	}
	age := e.opts.Now().Sub(e.invAt)
	if e.invErr != nil {
		return nil, e.invErr, age < e.opts.FailureTTL
	}
	return e.inv, nil, age < e.opts.CacheTTL
}

// fetchInventory lists the pulled models and shows each one whose digest
// changed since old, to learn its capabilities.
func (e *Endpoint) fetchInventory(ctx context.Context, old map[string]pulledModel) (map[string]pulledModel, error) {
	list, err := e.client.List(ctx)
	if err != nil {
		return nil, e.classify(err, "", "listing models")
	}
	inv := make(map[string]pulledModel, len(list.Models))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, showParallel)
	for _, lm := range list.Models {
		m := pulledModel{name: lm.Name, digest: lm.Digest, size: lm.Size, details: lm.Details}
		if prev, ok := old[modelKey(lm.Name)]; ok && prev.digest == lm.Digest && prev.digest != "" {
			mu.Lock()
			inv[modelKey(lm.Name)] = prev
			mu.Unlock()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			show, err := e.client.Show(ctx, &api.ShowRequest{Model: m.name})
			if err != nil {
				var se api.StatusError
				if errors.As(err, &se) && se.StatusCode == 404 {
					return // removed between the list and the show
				}
				// Keep the model with guessed capabilities rather than
				// hiding it because one show failed.
				m.capabilities = guessCapabilities(m.details, nil)
			} else {
				m.details = show.Details
				m.capabilities = capabilityNames(show)
				m.license = detectLicense(show.License)
				if n, ok := numberFromInfo(show.ModelInfo["general.parameter_count"]); ok {
					m.params = n
				}
			}
			if p := parseParamSize(m.details.ParameterSize); p > 0 {
				m.params = p
			}
			mu.Lock()
			inv[modelKey(m.name)] = m
			mu.Unlock()
		}()
	}
	wg.Wait()
	return inv, nil
}

// capabilityNames reads /api/show's capabilities; servers older than 0.6.4
// do not send them, and then they are guessed from the details.
func capabilityNames(show *api.ShowResponse) []string {
	if len(show.Capabilities) == 0 {
		return guessCapabilities(show.Details, show.ProjectorInfo)
	}
	out := make([]string, len(show.Capabilities))
	for i, c := range show.Capabilities {
		out[i] = string(c)
	}
	return out
}

func guessCapabilities(d api.ModelDetails, projector map[string]any) []string {
	fams := append([]string{d.Family}, d.Families...)
	for _, f := range fams {
		if strings.Contains(strings.ToLower(f), "bert") {
			return []string{"embedding"}
		}
	}
	caps := []string{"completion"}
	if len(projector) > 0 || slices.ContainsFunc(fams, func(f string) bool { return f == "clip" || f == "mllama" }) {
		caps = append(caps, "vision")
	}
	return caps
}

func numberFromInfo(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		return int64(n), n > 0
	case int64:
		return n, n > 0
	case int:
		return int64(n), n > 0
	}
	return 0, false
}

// parseParamSize reads Ollama's parameter_size ("7B", "8.0B", "567M").
func parseParamSize(s string) int64 {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := 1.0
	for suffix, m := range map[string]float64{"T": 1e12, "B": 1e9, "M": 1e6, "K": 1e3} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return 0
	}
	return int64(math.Round(f * mult))
}

// detectLicense maps the licence text a model ships with onto the id the
// Hub uses, so licence constraints work on Ollama models too. Unknown text
// gives "", which never satisfies a licence constraint.
func detectLicense(text string) string {
	head := strings.ToLower(text)
	if len(head) > 2000 {
		head = head[:2000]
	}
	switch {
	case strings.Contains(head, "apache license") && strings.Contains(head, "version 2.0"):
		return "apache-2.0"
	case strings.Contains(head, "mit license") || strings.TrimSpace(head) == "mit":
		return "mit"
	case strings.Contains(head, "gemma terms of use"):
		return "gemma"
	case strings.Contains(head, "llama 3.3 community license"):
		return "llama3.3"
	case strings.Contains(head, "llama 3.2 community license"):
		return "llama3.2"
	case strings.Contains(head, "llama 3.1 community license"):
		return "llama3.1"
	case strings.Contains(head, "llama 3 community license"):
		return "llama3"
	case strings.Contains(head, "llama 2 community license"):
		return "llama2"
	case strings.Contains(head, "creative commons attribution-noncommercial 4.0"):
		return "cc-by-nc-4.0"
	case strings.Contains(head, "creative commons attribution 4.0"):
		return "cc-by-4.0"
	}
	return ""
}

// Discover offers the pulled models that can serve task: vision models for
// image tasks, any text-generating model for text tasks. Embedding-only
// models are never offered.
func (e *Endpoint) Discover(ctx context.Context, task string) ([]endpoints.Offer, error) {
	spec, ok := chattask.Lookup(task)
	if !ok {
		return nil, nil
	}
	inv, _, err := e.inventory(ctx)
	if err != nil {
		return nil, err
	}
	var out []endpoints.Offer
	for _, m := range inv {
		if e.fits(m, task, spec.Vision) != nil {
			continue
		}
		out = append(out, endpoints.Offer{ID: m.name, Description: describe(m), Params: m.params, SizeBytes: m.size, License: m.license})
	}
	slices.SortFunc(out, func(a, b endpoints.Offer) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func describe(m pulledModel) string {
	var facts []string
	if m.details.Family != "" {
		facts = append(facts, m.details.Family+" family")
	}
	if m.details.ParameterSize != "" {
		facts = append(facts, m.details.ParameterSize+" parameters")
	}
	if m.details.QuantizationLevel != "" {
		facts = append(facts, m.details.QuantizationLevel)
	}
	var caps []string
	for _, c := range m.capabilities {
		if c != "completion" {
			caps = append(caps, c)
		}
	}
	if len(caps) > 0 {
		facts = append(facts, "can do "+strings.Join(caps, ", "))
	}
	return fmt.Sprintf("Pulled into the local Ollama server (%s).", strings.Join(facts, "; "))
}

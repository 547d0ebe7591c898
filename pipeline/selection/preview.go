package selection

import (
	"context"
	"fmt"
	"sync"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
)

// resolveProviders names, in a preview, the provider each candidate's
// route will try first, asking the Hub as a run would (a few lookups at a
// time, each cached): selection during a turn stays offline and names
// only what is settled.
func resolveProviders(ctx context.Context, c *flow.Choice, ev *flow.ModelEvent) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, cd := range c.Ranked {
		for _, r := range cd.Routes {
			if _, ok := r.(endpoints.ProviderNamer); !ok {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				p := flow.ResolvedProvider(ctx, r, c.Task.Task, cd.Model.ID)
				cd.Provider = p
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

// Preview runs selection for task without asking the controller: what
// `chorus models list` and the TUI's /models show. The event lists the
// ranked candidates and every excluded model with the reason.
func (sel *Selector) Preview(ctx context.Context, task string, cons flow.Constraints) (flow.ModelEvent, error) {
	s, _, ok := sel.Catalog.Resolve(task)
	if !ok {
		return flow.ModelEvent{}, fmt.Errorf("unknown task %q — see `chorus models list` or /skills for the task names", task)
	}
	c, _ := sel.selectTask(ctx, flow.Task{Task: s.Name}, cons, "")
	ev := c.Event()
	if !c.Controller {
		resolveProviders(ctx, c, &ev)
	}
	return ev, nil
}

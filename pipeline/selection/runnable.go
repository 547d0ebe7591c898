package selection

import (
	"context"
	"slices"

	"github.com/chorusai/chorus/skills"
)

// Runnable reports whether some candidate of s has a ready route now, or
// the controller does s itself.
func (sel *Selector) Runnable(ctx context.Context, s *skills.Skill) bool {
	if s.Controller && sel.ControllerTasks {
		return true
	}
	models, _ := sel.models(ctx, s, false)
	return slices.ContainsFunc(models, func(m skills.Model) bool {
		routes, _ := sel.readyRoutes(ctx, s.Name, m, false)
		return len(routes) > 0
	})
}

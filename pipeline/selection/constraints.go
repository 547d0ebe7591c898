package selection

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// constraintRejects says why m breaks a licence or size constraint.
func constraintRejects(cons flow.Constraints, m skills.Model) string {
	if len(m.Endpoints) == 1 && m.Endpoints[0] == skills.EndpointBuiltin {
		// Built-in tools are Chorus's own code, not third-party models:
		// licence and size limits are about the latter.
		return ""
	}
	if len(cons.Licenses) > 0 && !slices.ContainsFunc(cons.Licenses, func(l string) bool { return strings.EqualFold(l, m.License) }) {
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

func constraintReason(cons flow.Constraints, m skills.Model) string {
	switch cons.Prefer {
	case flow.PreferSmallest:
		return fmt.Sprintf("%s is the smallest qualifying model (%s)", m.ID, m.HumanSize())
	case flow.PreferBest:
		b, _ := flow.BenchmarkScore(m, cons.Benchmark)
		return fmt.Sprintf("%s has the best recorded %s %s: %g on %s", m.ID, b.Dataset, b.Metric, b.Value, b.Dataset)
	}
	return ""
}

package planning

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// CheckConstraints keeps of the constraints the controller wrote only what
// can exist — licences the Hub or a model of the catalog has (in their
// usual spelling: "Apache 2.0" is apache-2.0), a benchmark some model of
// the catalog records, tasks that are skills — and says once, in a note
// starting "ignored: ", what it dropped: a small or broken model invents
// them, and an invented licence or benchmark would otherwise exclude every
// model, or be shown as if it meant something.
func (p *Planner) CheckConstraints(c flow.Constraints) (flow.Constraints, []string) {
	var notes []string
	ignore := func(format string, args ...any) {
		notes = append(notes, "ignored: "+fmt.Sprintf(format, clipArgs(args)...))
	}
	c.Licenses, c.Tasks = slices.Clone(c.Licenses), slices.Clone(c.Tasks)
	if len(c.Licenses) > 0 {
		have := p.catalogLicenses()
		var kept []string
		for _, l := range c.Licenses {
			switch id, ok := skills.KnownLicense(l, have); {
			case strings.HasPrefix(l, flow.NoLicence):
				kept = append(kept, l) // Merge's: two allow-lists that exclude each other
			case !ok:
				ignore("licence %q — neither the Hub nor any model of the catalog has it", l)
			case !slices.Contains(kept, id):
				kept = append(kept, id)
			}
		}
		c.Licenses = kept
	}
	if c.Prefer == flow.PreferBest && !p.catalogHasBenchmark(c.Benchmark) {
		ignore("best %q — no model of the catalog records that benchmark", strings.ReplaceAll(c.Benchmark, " ", ":"))
		c.Prefer, c.Benchmark = "", ""
	}
	if len(c.Tasks) > 0 {
		var kept []string
		for _, name := range c.Tasks {
			if s, _, ok := p.Catalog.Resolve(name); ok {
				if !slices.Contains(kept, s.Name) {
					kept = append(kept, s.Name)
				}
				continue
			}
			ignore("constraint task %q — not a task (see /skills)", name)
		}
		c.Tasks = kept
	}
	return c, notes
}

// catalogLicenses lists the licences the catalog's models have.
func (p *Planner) catalogLicenses() []string {
	var out []string
	for _, s := range p.Catalog.All() {
		for _, m := range s.Models {
			if m.License != "" && !slices.Contains(out, m.License) {
				out = append(out, m.License)
			}
		}
	}
	return out
}

// catalogHasBenchmark reports whether some model of the catalog records a
// result the benchmark query matches.
func (p *Planner) catalogHasBenchmark(query string) bool {
	return slices.ContainsFunc(p.Catalog.All(), func(s *skills.Skill) bool { return flow.SkillHasBenchmark(s, query) })
}

package flow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/skills"
)

// Preferences for ranking under constraints.
const (
	PreferSmallest = "smallest"
	PreferBest     = "best"
)

// Constraints are the user's limits on model selection, as HIVE defines them:
// a licence allow-list, a size bound, local-only, and a preference for the
// smallest model or the best score on a benchmark. Selection applies them
// deterministically before any LLM choice and never breaks them.
type Constraints struct {
	// Licenses is an allow-list of licence ids ("apache-2.0", "mit").
	Licenses []string `json:"licenses,omitempty"`
	// MaxSize bounds the weight size or parameter count.
	MaxSize skills.Limit `json:"max_size,omitzero"`
	// LocalOnly keeps every task off cloud endpoints.
	LocalOnly bool `json:"local_only,omitempty"`
	// Prefer is "", PreferSmallest or PreferBest.
	Prefer string `json:"prefer,omitempty"`
	// Benchmark names the dataset and/or metric for PreferBest, e.g.
	// "common_voice wer"; every word must match the recorded result.
	Benchmark string `json:"benchmark,omitempty"`
	// Tasks limits the constraints to these task names; empty means all.
	Tasks []string `json:"tasks,omitempty"`
}

// IsZero reports whether no constraint is set.
func (c Constraints) IsZero() bool {
	return len(c.Licenses) == 0 && c.MaxSize.IsZero() && !c.LocalOnly && c.Prefer == "" && c.Benchmark == "" && len(c.Tasks) == 0
}

// AppliesTo reports whether the constraints cover task.
func (c Constraints) AppliesTo(task string) bool {
	return len(c.Tasks) == 0 || slices.Contains(c.Tasks, task)
}

// Merge returns c with every constraint of o added; o wins where both set a
// single-valued constraint, and licence lists intersect when both are set
// (a model must satisfy both the standing and the per-request allow-list).
//
// The result shares no slice with c or o: it travels in events and reports
// that outlive the caller's own constraints, which may change meanwhile.
func (c Constraints) Merge(o Constraints) Constraints {
	out := c
	out.Licenses, out.Tasks = slices.Clone(c.Licenses), slices.Clone(c.Tasks)
	switch {
	case len(c.Licenses) == 0:
		out.Licenses = slices.Clone(o.Licenses)
	case len(o.Licenses) > 0:
		out.Licenses = nil
		for _, l := range c.Licenses {
			if containsFold(o.Licenses, l) {
				out.Licenses = append(out.Licenses, l)
			}
		}
		if len(out.Licenses) == 0 { // disjoint lists: nothing may qualify
			out.Licenses = []string{NoLicence + strings.Join(c.Licenses, ",") + " ∩ " + strings.Join(o.Licenses, ",") + ")"}
		}
	}
	if !o.MaxSize.IsZero() {
		out.MaxSize = o.MaxSize
	}
	out.LocalOnly = c.LocalOnly || o.LocalOnly
	if o.Prefer != "" {
		out.Prefer, out.Benchmark = o.Prefer, o.Benchmark
	}
	if len(o.Tasks) > 0 {
		out.Tasks = slices.Clone(o.Tasks)
	}
	return out
}

// NoLicence starts the licence Merge writes for two allow-lists with
// nothing in common: no model has it, so nothing qualifies.
const NoLicence = "(none: "

// String renders the constraints in the syntax ParseConstraints accepts.
func (c Constraints) String() string {
	var parts []string
	if len(c.Licenses) > 0 {
		parts = append(parts, "license="+strings.Join(c.Licenses, ","))
	}
	if !c.MaxSize.IsZero() {
		parts = append(parts, "max-size="+c.MaxSize.String())
	}
	if c.LocalOnly {
		parts = append(parts, "local-only")
	}
	switch c.Prefer {
	case PreferSmallest:
		parts = append(parts, "smallest")
	case PreferBest:
		parts = append(parts, "best="+strings.ReplaceAll(c.Benchmark, " ", ":"))
	}
	if len(c.Tasks) > 0 {
		parts = append(parts, "tasks="+strings.Join(c.Tasks, ","))
	}
	return strings.Join(parts, " ")
}

// ParseConstraints reads the /constrain syntax: space-separated terms
// "license=apache-2.0,mit", "max-size=1GB" or "max-size=350M",
// "local-only", "smallest", "best=wer:common_voice", "tasks=a,b", and
// "clear" (which resets everything before it).
func ParseConstraints(s string) (Constraints, error) {
	var c Constraints
	// The preference and its benchmark may come as separate terms
	// (prefer=best benchmark=…, the config file's way): read at the end.
	var prefer, bench string
	preferSet := false
	for _, term := range strings.Fields(s) {
		key, val, hasVal := strings.Cut(term, "=")
		key = strings.ReplaceAll(strings.ToLower(strings.TrimLeft(key, "-")), "_", "-")
		switch key {
		case "clear", "none", "reset":
			c, prefer, bench, preferSet = Constraints{}, "", "", false
		case "license", "licence", "licenses", "licences":
			if !hasVal || val == "" {
				return c, fmt.Errorf("license needs a value, e.g. license=apache-2.0,mit")
			}
			for _, l := range strings.Split(val, ",") {
				if l = strings.ToLower(strings.TrimSpace(l)); l != "" {
					c.Licenses = append(c.Licenses, l)
				}
			}
		case "max-size", "maxsize", "size":
			l, err := skills.ParseLimit(val)
			if err != nil {
				return c, fmt.Errorf("max-size: %w", err)
			}
			c.MaxSize = l
		case "local-only", "local":
			on, err := parseSwitch(val, hasVal)
			if err != nil {
				return c, fmt.Errorf("local-only: %w", err)
			}
			c.LocalOnly = on
		case "smallest":
			prefer, bench, preferSet = PreferSmallest, "", true
		case "best":
			prefer, bench, preferSet = PreferBest, val, true
		case "prefer":
			prefer, preferSet = val, true
		case "benchmark":
			bench, preferSet = val, true
			if prefer == "" {
				prefer = PreferBest
			}
		case "tasks", "task":
			c.Tasks = nil
			for _, t := range strings.Split(val, ",") {
				if t = strings.TrimSpace(t); t != "" {
					c.Tasks = append(c.Tasks, t)
				}
			}
		default:
			return c, fmt.Errorf("unknown constraint %q (use license=…, max-size=…, local-only, smallest, best=…, tasks=…, clear — or the config file's names: prefer=smallest, prefer=best benchmark=…, max_size=…, local_only)", term)
		}
	}
	if preferSet {
		p, b, err := ParsePrefer(prefer, bench)
		if err != nil {
			return c, err
		}
		c.Prefer, c.Benchmark = p, b
	}
	return c, nil
}

// ParsePrefer reads a ranking preference in any of its spellings:
// "smallest"; "best" with the benchmark given apart (the config file's
// benchmark:, the plan's "benchmark"); or "best=wer:common_voice",
// "best:…", "best …" with it inline. It returns the preference and the
// benchmark, normalised ("wer common_voice"); "" prefers nothing.
func ParsePrefer(prefer, benchmark string) (string, string, error) {
	p := strings.ToLower(strings.TrimSpace(prefer))
	if rest, ok := strings.CutPrefix(p, PreferBest); ok && rest != "" && strings.ContainsRune("=: ", rune(rest[0])) {
		p, benchmark = PreferBest, rest[1:]
	}
	switch p {
	case "":
		return "", "", nil
	case PreferSmallest:
		return PreferSmallest, "", nil
	case PreferBest:
		b := strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer(":", " ", ",", " ").Replace(benchmark))), " ")
		if b == "" {
			return "", "", fmt.Errorf("best needs a benchmark, e.g. best=wer:common_voice (or prefer=best benchmark=wer:common_voice)")
		}
		return PreferBest, b, nil
	}
	return "", "", fmt.Errorf("unknown preference %q (want smallest or best=…)", prefer)
}

// parseSwitch reads an on/off value; a switch given without one is on.
func parseSwitch(val string, hasVal bool) (bool, error) {
	if !hasVal {
		return true, nil
	}
	switch strings.ToLower(val) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("want true or false, not %q", val)
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

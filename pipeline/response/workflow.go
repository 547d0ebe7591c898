package response

import (
	"fmt"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/text"
)

// Workflow renders the execution record as Markdown. It is generated,
// never written by the LLM, so it names exactly what ran.
func Workflow(rep *flow.Report, p flow.Plan) string {
	if len(rep.Tasks) == 0 && len(p.Notes) == 0 {
		return ""
	}
	var b strings.Builder
	// A revision's line comes before the first task it added, or after
	// the tasks when it added none.
	revisedAt := map[int][]flow.Revision{}
	for _, r := range rep.Revisions {
		at := -1
		if len(r.Tasks) > 0 {
			at = r.Tasks[0].ID
		}
		revisedAt[at] = append(revisedAt[at], r)
	}
	if len(rep.Tasks) > 0 {
		b.WriteString("**Workflow**\n\n")
		for _, t := range rep.Tasks {
			for _, r := range revisedAt[t.ID] {
				fmt.Fprintf(&b, "\n_%s._\n\n", upperFirst(text.OneLine(r.String(), 400)))
			}
			fmt.Fprintf(&b, "%d. **%s**", t.ID, t.Task)
			if len(t.Dep) > 0 {
				deps := make([]string, len(t.Dep))
				for i, d := range t.Dep {
					deps[i] = fmt.Sprint(d)
				}
				fmt.Fprintf(&b, " (after %s)", strings.Join(deps, ", "))
			}
			switch {
			case t.Status == flow.StatusOK:
				fmt.Fprintf(&b, " — `%s` on %s, %s ✓", t.Model, flow.Where(t.Endpoint, t.Provider), humanMS(t.ElapsedMS))
			case t.Cancelled:
				fmt.Fprintf(&b, " — cancelled")
			case t.Skipped:
				fmt.Fprintf(&b, " — not run")
			default:
				fmt.Fprintf(&b, " — failed after %s", humanMS(t.ElapsedMS))
			}
			b.WriteString("\n")
			// After a fallback the selection's reason is about the
			// model chosen first, not the one that ran: say whose it is.
			note := ""
			if t.Status == flow.StatusOK {
				note = flow.FallbackNoteWith(t.Attempts, func(a flow.Attempt) string {
					if a.Endpoint == flow.EndpointController {
						return "the controller"
					}
					return "`" + a.Model + "`"
				})
			}
			if note != "" {
				fmt.Fprintf(&b, "   - %s\n", text.OneLine(note, 400))
			}
			switch {
			case t.Decided == "" || t.Status != flow.StatusOK:
			case note != "" && t.Attempts[0].Model != t.Model:
				fmt.Fprintf(&b, "   - `%s` was selected (%s): %s\n", t.Attempts[0].Model, t.Decided, text.OneLine(t.Reason, 200))
			default:
				fmt.Fprintf(&b, "   - selected (%s): %s\n", t.Decided, text.OneLine(t.Reason, 200))
			}
			if t.Unmet != "" {
				fmt.Fprintf(&b, "   - constraint not applied: %s\n", text.OneLine(t.Unmet, 200))
			}
			if t.Error != "" && !t.Cancelled {
				fmt.Fprintf(&b, "   - %s\n", text.OneLine(t.Error, 400))
			}
		}
	}
	for _, r := range revisedAt[-1] {
		fmt.Fprintf(&b, "\n_%s._\n", upperFirst(text.OneLine(r.String(), 400)))
	}
	if len(rep.Files) > 0 {
		b.WriteString("\n**Files**\n\n")
		for _, f := range rep.Files {
			fmt.Fprintf(&b, "- `%s`\n", f)
		}
	}
	if !rep.Constraints.IsZero() {
		fmt.Fprintf(&b, "\n_Constraints: %s_\n", rep.Constraints.String())
	}
	if len(p.Notes) > 0 {
		b.WriteString("\n**Plan repairs**\n\n")
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func humanMS(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// upperFirst capitalises the first letter of s, for a sentence.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

package sessions

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/text"
)

// Export returns the session as a Markdown transcript, as /export writes
// it: a header, then per turn the request (quoted), its attachments, the
// answer as written, and a compact record of the plan, the models that ran
// and the files produced, with full paths so they can be opened. The
// transcript carries no escape sequence, C1 or bidi control: answers and
// results come from models, and a transcript is read in terminals.
func Export(s *Session) string {
	return text.Clean(export(s))
}

func export(s *Session) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	title := s.title()
	if title == "" {
		title = "Chorus session"
	}
	fmt.Fprintf(&b, "# %s\n\n", escapeLine(title))
	fmt.Fprintf(&b, "- Session: %s\n", codeSpan(s.ID))
	if !s.Created.IsZero() {
		fmt.Fprintf(&b, "- Created: %s\n", stamp(s.Created))
	}
	if !s.Updated.IsZero() {
		fmt.Fprintf(&b, "- Updated: %s\n", stamp(s.Updated))
	}
	if s.Model != "" {
		fmt.Fprintf(&b, "- Controller: %s\n", codeSpan(s.Model))
	}
	if !s.Constraints.IsZero() {
		fmt.Fprintf(&b, "- Constraints: %s\n", codeSpan(s.Constraints.String()))
	}
	for i, t := range s.Turns {
		exportTurn(&b, i+1, t)
	}
	return b.String()
}

func exportTurn(b *strings.Builder, n int, t Record) {
	fmt.Fprintf(b, "\n## Turn %d", n)
	if !t.Started.IsZero() {
		fmt.Fprintf(b, " — %s", stamp(t.Started))
	}
	b.WriteString("\n\n**You:**\n\n")
	b.WriteString(quote(t.Request))
	if len(t.Attachments) > 0 {
		b.WriteString("\nAttachments:\n\n")
		for _, p := range t.Attachments {
			fmt.Fprintf(b, "- %s\n", codeSpan(p))
		}
	}
	b.WriteString("\n**Chorus:**\n\n")
	switch {
	case t.Answer != "":
		b.WriteString(strings.TrimRight(t.Answer, "\n") + "\n")
	case t.outcome() != "":
		fmt.Fprintf(b, "_%s_\n", strings.Trim(t.outcome(), "()"))
	default:
		b.WriteString("_No answer._\n")
	}
	if t.Cancelled && t.Answer != "" {
		b.WriteString("\n_Cancelled before the turn finished._\n")
	}
	if t.Error != "" && t.Answer != "" {
		fmt.Fprintf(b, "\n**Error:** %s\n", escapeLine(t.Error))
	}

	if len(t.Plan) > 0 {
		b.WriteString("\n**Plan:**\n\n")
		planLines(b, t.Plan)
	}
	if len(t.PlanNotes) > 0 {
		b.WriteString("\nPlan notes:\n\n")
		for _, note := range t.PlanNotes {
			fmt.Fprintf(b, "- %s\n", escapeLine(note))
		}
	}
	for _, r := range t.Revisions {
		fmt.Fprintf(b, "\n**Plan revised:** %s\n", escapeLine(r.String()))
		if len(r.Tasks) > 0 {
			b.WriteByte('\n')
			planLines(b, r.Tasks)
		}
		if len(r.Notes) > 0 {
			b.WriteString("\nRevision notes:\n\n")
			for _, note := range r.Notes {
				fmt.Fprintf(b, "- %s\n", escapeLine(note))
			}
		}
	}
	if lines := modelLines(t); len(lines) > 0 {
		b.WriteString("\n**Models:**\n\n")
		for _, l := range lines {
			b.WriteString("- " + l + "\n")
		}
	}
	if gen := t.Generated(); len(gen) > 0 {
		b.WriteString("\n**Files:**\n\n")
		for _, p := range gen {
			fmt.Fprintf(b, "- %s\n", codeSpan(p))
		}
	}
	if t.Report != nil && t.Report.ElapsedMS > 0 {
		fmt.Fprintf(b, "\n_Took %s._\n", (time.Duration(t.Report.ElapsedMS) * time.Millisecond).Round(100*time.Millisecond))
	}
}

// planLines lists tasks, one a line: id, name, dependencies, arguments.
func planLines(b *strings.Builder, tasks []pipeline.Task) {
	for _, task := range tasks {
		fmt.Fprintf(b, "- #%d %s", task.ID, codeSpan(task.Task))
		if len(task.Dep) > 0 && !(len(task.Dep) == 1 && task.Dep[0] == -1) {
			deps := make([]string, len(task.Dep))
			for i, d := range task.Dep {
				deps[i] = fmt.Sprint(d)
			}
			fmt.Fprintf(b, " after %s", strings.Join(deps, ", "))
		}
		if args := formatArgs(task.Args); args != "" {
			fmt.Fprintf(b, " — %s", args)
		}
		b.WriteByte('\n')
	}
}

// modelLines describes what ran: from the execution report when there is
// one (what actually happened), otherwise from the selection events.
func modelLines(t Record) []string {
	var out []string
	if t.Report != nil && len(t.Report.Tasks) > 0 {
		for _, r := range t.Report.Tasks {
			l := fmt.Sprintf("#%d %s", r.ID, codeSpan(r.Task))
			if r.Model != "" {
				l += " — " + codeSpan(r.Model)
				if r.Endpoint != "" {
					l += " on " + pipeline.Where(r.Endpoint, r.Provider)
				}
			}
			switch {
			case r.Cancelled:
				l += " · cancelled"
			case r.Skipped:
				l += " · skipped"
				if r.Error != "" {
					l += ": " + escapeLine(r.Error)
				}
			case r.Status == pipeline.StatusError:
				l += " · failed"
				if r.Error != "" {
					l += ": " + escapeLine(r.Error)
				}
			default:
				l += " · " + r.Status
				if r.ElapsedMS > 0 {
					l += fmt.Sprintf(" in %s", (time.Duration(r.ElapsedMS) * time.Millisecond).Round(100*time.Millisecond))
				}
				if note := pipeline.FallbackNote(r.Attempts); note != "" {
					l += " (" + escapeLine(note) + ")"
				}
			}
			out = append(out, l)
		}
		return out
	}
	for _, m := range t.Models {
		l := fmt.Sprintf("#%d %s", m.ID, codeSpan(m.Task))
		if m.Model != "" {
			l += " — " + codeSpan(m.Model)
			if m.Endpoint != "" {
				l += " on " + pipeline.Where(m.Endpoint, m.Provider)
			}
		} else {
			l += " — no model"
		}
		if m.Decided != "" {
			l += " (" + escapeLine(m.Decided) + ")"
		}
		if m.Reason != "" {
			l += ": " + escapeLine(m.Reason)
		}
		out = append(out, l)
	}
	return out
}

// formatArgs renders task arguments compactly, keys sorted, long values cut.
func formatArgs(args map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		v := strings.Join(strings.Fields(args[k]), " ")
		if r := []rune(v); len(r) > 80 {
			v = string(r[:79]) + "…"
		}
		parts = append(parts, k+"="+codeSpan(v))
	}
	return strings.Join(parts, ", ")
}

// quote renders text as a Markdown block quote, keeping its lines.
func quote(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ">\n"
	}
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if l == "" {
			b.WriteString(">\n")
		} else {
			b.WriteString("> " + l + "\n")
		}
	}
	return b.String()
}

// codeSpan wraps s in enough backticks that any inside it stay literal.
func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if s == "" {
		return `""`
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// escapeLine flattens s to one line for a list item or heading.
func escapeLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func stamp(t time.Time) string { return t.Format("2006-01-02 15:04 MST") }

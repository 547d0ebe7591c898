package planning

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// The tools of MCP servers (endpoints/mcp) are skills like any other —
// planned, validated, selected and run — with three differences handled
// here: the planning prompt lists them within a budget, their arguments
// are converted to each tool's inputSchema before the plan runs, and a
// tool that may change things runs only once the turn approves it.

// planBudget is the planning prompt's budget in bytes: 1,500 tokens of
// about four bytes, the head and the stage message together
// (TestPlanningPromptBudget). headReserve is what the head leaves for the
// stage message (the request and its attachments).
const (
	planBudget  = 1500 * 4
	headReserve = 300
)

// splitTools separates the MCP tools from the catalog's skills.
func splitTools(all []*skills.Skill) (catalog, tools []*skills.Skill) {
	for _, s := range all {
		if s.Tool != nil {
			tools = append(tools, s)
		} else {
			catalog = append(catalog, s)
		}
	}
	return catalog, tools
}

// withoutTools drops the MCP tools from the names of skills that cannot
// run: a server that is down would fill the line with its tools' names;
// chorus mcp list says why it is down.
func withoutTools(names []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return strings.Contains(n, ".") })
}

// Tool detail levels, richest first.
const (
	toolsFull     = iota // a line per tool: arguments with their types, outputs, brief
	toolsGrouped         // a line per server: each tool with its argument names
	toolsRequired        // a line per server: each tool with its required arguments
	toolsNames           // a line per server: the tools' names
)

// fit writes the head with the MCP tools in as much detail as the budget
// allows. The catalog's runnable skills, the rules and the main
// demonstrations always stay; the tools take, in turn, the room of the
// line naming skills that cannot run and of the constraints
// demonstration before they give up their own detail (a line per tool;
// then a line per server with argument names; then with the required
// ones only; then names only, the last cut short with a count).
func (h headParts) fit(tools []*skills.Skill) string {
	budget := planBudget - headReserve
	for level := toolsFull; level <= toolsNames; level++ {
		lines := toolLines(tools, level, -1)
		for _, opt := range []struct{ notRunnable, demo bool }{{true, true}, {false, true}, {false, false}} {
			if s := h.render(lines, opt.notRunnable, opt.demo); len(s) <= budget {
				return s
			}
		}
	}
	// Names only, as many as fit.
	base := len(h.render("", false, false))
	return h.render(toolLines(tools, toolsNames, budget-base), false, false)
}

// toolLines renders the tools at a level; room, when not negative,
// bounds the bytes of a names-only listing.
func toolLines(tools []*skills.Skill, level, room int) string {
	var b strings.Builder
	if level == toolsFull {
		for _, s := range tools {
			b.WriteString("- " + toolLine(s) + "\n")
		}
		return b.String()
	}
	var servers []string
	byServer := map[string][]*skills.Skill{}
	for _, s := range tools {
		if _, ok := byServer[s.Tool.Server]; !ok {
			servers = append(servers, s.Tool.Server)
		}
		byServer[s.Tool.Server] = append(byServer[s.Tool.Server], s)
	}
	left := room
	for _, srv := range servers {
		ts := byServer[srv]
		var items []string
		outs := []skills.Modality{}
		for _, s := range ts {
			item := s.Tool.Name
			var args []string
			for _, a := range s.Args {
				switch {
				case level == toolsGrouped && a.Optional:
					args = append(args, a.Name+"?")
				case level <= toolsRequired && !a.Optional:
					args = append(args, a.Name)
				}
			}
			if len(args) > 0 {
				item += "(" + strings.Join(args, ",") + ")"
			}
			items = append(items, item)
			for _, o := range s.Outputs {
				if !slices.Contains(outs, o) {
					outs = append(outs, o)
				}
			}
		}
		line := fmt.Sprintf("- %s.{%s} → %s: tools of %s, each a task\n", srv, strings.Join(items, ", "), joinModalities(outs), srv)
		if room >= 0 {
			for len(line) > left && len(items) > 0 {
				items = items[:len(items)-1]
				line = fmt.Sprintf("- %s.{%s, +%d more} → %s: tools of %s, each a task\n", srv, strings.Join(items, ", "), len(ts)-len(items), joinModalities(outs), srv)
			}
			if len(line) > left {
				continue
			}
			left -= len(line)
		}
		b.WriteString(line)
	}
	return b.String()
}

// toolLine is one tool in full: its arguments with the type the schema
// gives where the name does not say it, what it produces, its brief.
func toolLine(s *skills.Skill) string {
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = a.Name
		kind := string(a.Type)
		if !a.Type.Media() {
			kind = s.Tool.Params[a.Name].Schema.Kind()
			if kind == "string" || kind == "" {
				kind = ""
			}
		}
		if kind != "" && kind != a.Name {
			args[i] += ":" + kind
		}
		if a.Optional {
			args[i] += "?"
		}
	}
	return fmt.Sprintf("%s(%s) → %s: %s", s.Name, strings.Join(args, ","), joinModalities(s.Outputs), flow.SkillBrief(s))
}

// checkToolArgs converts a tool's arguments to its inputSchema before the
// plan runs: a value a model wrote loosely ("3.0", "Yes", "farenheit") is
// repaired with a note; one that cannot be converted drops the task,
// naming the argument. (A path in a value is the gate's: gateArgs.)
func (v *validator) checkToolArgs(t *flow.Task, s *skills.Skill) {
	for _, a := range s.Args {
		val, ok := t.Args[a.Name]
		if !ok || a.Type.Media() || len(flow.Refs(val)) > 0 {
			// A file goes as data, checked like any; a reference gets
			// its value when its task has run, and is converted then.
			continue
		}
		p := s.Tool.Params[a.Name]
		conv, note, err := p.Schema.Convert(val)
		if err != nil {
			v.drop(*t, "%s: argument %s: %s", s.Name, a.Name, err.Error())
			return
		}
		if note != "" {
			v.note("task %d: argument %s: %s", t.ID, a.Name, note)
			t.Args[a.Name] = skills.Canonical(conv)
		}
	}
}

// toolDefault fills a required argument of a tool the plan left out from
// the default its schema gives, with a note, and reports whether it did:
// the tool would use it anyway, and a server that checks its required
// arguments gets it.
func (v *validator) toolDefault(t *flow.Task, s *skills.Skill, a skills.Arg) bool {
	if s.Tool == nil || a.Type.Media() {
		return false
	}
	p := s.Tool.Params[a.Name]
	if p.Schema == nil || p.Schema.Default == nil {
		return false
	}
	val := skills.Canonical(p.Schema.Default)
	t.Args[a.Name] = val
	shown := val
	if _, isString := p.Schema.Default.(string); isString {
		shown = fmt.Sprintf("%q", val)
	}
	v.note("task %d: argument %s: the plan gives none; using the tool's default %s", t.ID, a.Name, shown)
	return true
}

// argKind is what an argument holds, for messages: a tool's argument by
// its schema's type ("integer", "array"), any other by its modality.
func argKind(s *skills.Skill, a skills.Arg) string {
	if s.Tool != nil && !a.Type.Media() {
		if k := s.Tool.Params[a.Name].Schema.Kind(); k != "" {
			return k
		}
	}
	return string(a.Type)
}

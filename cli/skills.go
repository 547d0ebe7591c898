package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

func newSkillsCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "skills",
		Short: "List the tasks the planner can use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			// The tools of the mcp: servers are skills too: the App's
			// catalog has them.
			a, err := g.newApp(cfg, app.Options{})
			if err != nil {
				return err
			}
			defer a.Close()
			fmt.Fprint(stdout(cmd), skillTable(a.Engine().Catalog().All(), listWidth(stdout(cmd))))
			return nil
		},
	}
}

// skillTable lists the skills in columns, each description clipped to the
// width left (the terminal's, 80 on a pipe); when the columns leave too
// little for it, a skill takes two lines, its description indented under
// it, so no line wraps.
func skillTable(all []*skills.Skill, width int) string {
	type row struct{ name, io, models, desc string }
	rows := []row{{"TASK", "IN → OUT", "MODELS", "DESCRIPTION"}}
	for _, s := range all {
		var in, out []string
		for _, m := range s.Inputs() {
			in = append(in, string(m))
		}
		for _, m := range s.Outputs {
			out = append(out, string(m))
		}
		desc := s.Description
		if s.Tool != nil {
			// An MCP tool: its server, and whether it asks before it runs.
			prefix := "[MCP " + s.Tool.Server + "] "
			if s.Tool.NeedsApproval() != "" {
				prefix = "[MCP " + s.Tool.Server + ", asks] "
			}
			desc = prefix + desc
		}
		if len(in) == 0 {
			in = []string{"-"}
		}
		rows = append(rows, row{s.Name, strings.Join(in, "+") + " → " + strings.Join(out, "+"), fmt.Sprint(len(s.Models)), desc})
	}
	var wName, wIO int
	for _, r := range rows {
		wName = max(wName, utf8.RuneCountInString(r.name))
		wIO = max(wIO, utf8.RuneCountInString(r.io))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-utf8.RuneCountInString(s)) }
	prefix := wName + 2 + wIO + 2 + len("MODELS") + 2
	var b strings.Builder
	if width-prefix >= 30 {
		for _, r := range rows {
			fmt.Fprintf(&b, "%s  %s  %s  %s\n", pad(r.name, wName), pad(r.io, wIO), pad(r.models, len("MODELS")), text.OneLine(r.desc, width-prefix))
		}
		return b.String()
	}
	for _, r := range rows[1:] {
		fmt.Fprintf(&b, "%s  %s  %s model(s)\n", r.name, r.io, r.models)
		fmt.Fprintf(&b, "    %s\n", text.OneLine(r.desc, width-4))
	}
	return b.String()
}

package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/endpoints/command"
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
			w, width := stdout(cmd), listWidth(stdout(cmd))
			fmt.Fprint(w, skillTable(a.Engine().Catalog().All(), width))
			// The programs are experts too; one not installed is listed
			// with what to install.
			progs, err := app.Programs(cfg)
			if err != nil {
				return err
			}
			fmt.Fprint(w, programTable(progs, cfg.Command.Enabled, width))
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

// programTable lists the programs the command kind runs — presets and
// command.programs — with the tasks each does and where it is installed,
// or that it is missing and what to install: in columns when they fit
// width, else two lines a program, so the fix is never clipped away.
func programTable(progs []command.Status, enabled bool, width int) string {
	var b strings.Builder
	head := "\nPROGRAMS (command.programs; docs/endpoints.md)"
	if !enabled {
		head += " — off: command.enabled is false"
	}
	b.WriteString(head + "\n")
	type row struct{ name, tasks, where string }
	var rows []row
	for _, p := range progs {
		where := p.Path
		switch {
		case p.Path == "":
			where = "missing — " + p.Fix
		case !p.Found():
			where = p.Missing
		case len(p.Pairs) > 0:
			where += " (" + strings.Join(p.Pairs, ", ") + ")"
		}
		name := p.Name
		if !p.Preset {
			name += " (yours)"
		}
		rows = append(rows, row{name, strings.Join(p.Tasks, ","), where})
	}
	var cols strings.Builder
	tw := tabwriter.NewWriter(&cols, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.name, r.tasks, r.where)
	}
	tw.Flush()
	lines := strings.Split(strings.TrimRight(cols.String(), "\n"), "\n")
	if !slices.ContainsFunc(lines, func(l string) bool { return utf8.RuneCountInString(l) > width }) {
		return b.String() + cols.String()
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\n", text.Clip(r.name+" ("+r.tasks+")", width))
		fmt.Fprintf(&b, "    %s\n", text.Clip(r.where, width-4))
	}
	return b.String()
}

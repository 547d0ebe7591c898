package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

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
			cat, err := loadCatalog(cfg)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tIN → OUT\tMODELS\tDESCRIPTION")
			for _, s := range cat.All() {
				in := make([]string, 0)
				for _, m := range s.Inputs() {
					in = append(in, string(m))
				}
				out := make([]string, 0)
				for _, m := range s.Outputs {
					out = append(out, string(m))
				}
				fmt.Fprintf(tw, "%s\t%s → %s\t%d\t%s\n", s.Name, strings.Join(in, "+"), strings.Join(out, "+"), len(s.Models), text.OneLine(s.Description, 70))
			}
			return tw.Flush()
		},
	}
}

package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

func newConfigCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (the token is never shown)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			shown := *cfg
			if shown.HuggingFace.Token != "" {
				shown.HuggingFace.Token = "(set, from " + cfg.TokenSource + ")"
			}
			b, err := yaml.Marshal(shown)
			if err != nil {
				return err
			}
			src := cfg.File
			if src == "" {
				src = "none (built-in defaults)"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# config file: %s\n%s", src, b)
			return nil
		},
	}
}

package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/chorusai/chorus/text"
)

func newConfigCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (tokens and keys are never shown)",
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
			// The servers are copied before their keys are masked: shown
			// shares the slice with cfg.
			shown.OpenAI = slices.Clone(cfg.OpenAI)
			for i, s := range shown.OpenAI {
				switch {
				case s.Key != "" && s.KeyEnv != "":
					shown.OpenAI[i].Key = "(set, from " + s.KeyEnv + ")"
				case s.Key != "":
					shown.OpenAI[i].Key = "(set)"
				case s.KeyEnv != "":
					// The usual cause of a refused key: say so here.
					shown.OpenAI[i].Key = "(not set: " + s.KeyEnv + " is empty)"
				}
			}
			b, err := yaml.Marshal(shown)
			if err != nil {
				return err
			}
			src := cfg.File
			if src == "" {
				src = "none (built-in defaults)"
			}
			// A password in a configured URL is never shown.
			fmt.Fprintf(cmd.OutOrStdout(), "# config file: %s\n%s", src, text.RedactURLs(string(b)))
			return nil
		},
	}
}

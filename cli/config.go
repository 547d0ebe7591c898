package cli

import (
	"fmt"

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
			// Every secret — keys, tokens, header and env values, a
			// password or token in a URL — shows where it came from.
			shown := cfg.Shown()
			b, err := yaml.Marshal(shown)
			if err != nil {
				return err
			}
			src := cfg.File
			if src == "" {
				src = "none (built-in defaults)"
			}
			// A password in a URL of a value the rule does not know (a
			// list of arguments) is never shown either.
			fmt.Fprintf(stdout(cmd), "# config file: %s\n%s", src, text.RedactURLs(string(b)))
			return nil
		},
	}
}

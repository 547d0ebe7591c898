// Command chorus is a terminal chat application in which a local LLM served
// by Ollama plans each request into tasks, picks an expert model for every
// task, runs the tasks on local or Hugging Face endpoints, and writes the
// answer from their results.
//
//	chorus                 open the chat TUI
//	chorus run "request"   run one turn headless (--json for machine output)
//	chorus models list     show what model selection sees, and why models are excluded
//	chorus models sync     refresh the model catalog from the Hugging Face Hub
package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/text"
)

// defaultConfig is config.yaml: the documented defaults.
//
//go:embed config.yaml
var defaultConfig []byte

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// exitError carries a process exit code with its one-line cause.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// globalFlags are the flags every command shares.
type globalFlags struct {
	configFile string
	model      string
	host       string
	mode       string
	resume     string
}

func (g *globalFlags) load() (*config.Config, error) {
	cfg, err := config.Load(defaultConfig, g.configFile)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	if g.model != "" {
		cfg.Controller.Model = g.model
	}
	if g.host != "" {
		h, err := config.NormalizeHost(g.host)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("--host: %w", err)}
		}
		cfg.Controller.Host = h
	}
	if g.mode != "" {
		switch g.mode {
		case "local", "huggingface", "hybrid":
			cfg.InferenceMode = g.mode
		default:
			return nil, &exitError{code: 2, err: fmt.Errorf("--mode: unknown value %q (want local, huggingface or hybrid)", g.mode)}
		}
	}
	return cfg, nil
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "chorus",
		Short: "Chat with a local LLM that plans, picks expert models and runs them for you",
		Long: `Chorus is a terminal chat application. A local LLM served by Ollama (the controller) plans each
request into tasks, picks an expert model for every task, runs the tasks on local or Hugging Face
inference endpoints, and writes the answer from their results.

Run without arguments to open the chat.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			return runTUI(cmd.Context(), cfg, g.resume)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.configFile, "config", "", "config file (default $XDG_CONFIG_HOME/chorus/config.yaml)")
	pf.StringVar(&g.model, "model", "", "controller model (overrides controller.model)")
	pf.StringVar(&g.host, "host", "", "Ollama host (overrides controller.host and OLLAMA_HOST)")
	pf.StringVar(&g.mode, "mode", "", "inference mode: local, huggingface or hybrid")
	root.Flags().StringVar(&g.resume, "resume", "", `reopen a saved session by id ("latest" for the newest)`)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: 2, err: err} })
	root.AddCommand(newRunCmd(g), newModelsCmd(g), newSkillsCmd(g), newConfigCmd(g))
	return root
}

func main() {
	if err := newRootCmd().Execute(); err != nil {
		os.Exit(reportError(os.Stderr, err))
	}
}

// reportError writes err's one-line cause to w, as a terminal may show it,
// and returns the exit status it carries.
func reportError(w io.Writer, err error) int {
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if ee == nil || ee.err != nil {
		// The cause may quote a server, a model or a file name: no escape
		// sequence in it reaches the terminal.
		fmt.Fprintln(w, "chorus:", text.Clean(err.Error()))
	}
	return code
}

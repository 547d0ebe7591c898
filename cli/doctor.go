package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/doctor"
	"github.com/chorusai/chorus/text"
)

func newDoctorCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check what Chorus needs here — the controller, Hugging Face, programs, MCP servers, folders, config — and say how to fix what is not right",
		Long: `Checks, all at once, what Chorus needs on this machine and prints one line for each: ✓ what it found, or ✗ what
is wrong with the fix on the next line (– for a check that does not apply here):
the configuration file's keys and values; the controller's server (Ollama, or the OpenAI-compatible server
controller.kind names) and its version; the controller model pulled, with its context length; the Hugging
Face token (whose it is) and the Inference Providers router; each local program the command endpoint runs,
with its version; each MCP server of the configuration started, with its tool count; the sessions and
outputs folders writable.
A check takes at most 5 s and all of them at most 15 s, whatever a server does; one that does not answer in
time fails saying so. With --json, stdout is one JSON object: {"ok", "elapsed_ms", "checks": [{"id", "name",
"status" ("ok", "fail" or "skip"), "detail", "fix", "elapsed_ms"}]}.
Exit status: 0 when every check passed (or did not apply), 1 when one failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep := doctor.Run(cmd.Context(), doctor.Checks(g.doctorEnv()), doctor.Options{})
			w := stdout(cmd)
			if asJSON {
				enc := json.NewEncoder(jsonWriter{w})
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				_ = enc.Encode(rep)
			} else {
				printDoctor(w, rep, listWidth(w))
			}
			if !rep.OK {
				failed := 0
				for _, r := range rep.Checks {
					if r.Status == doctor.Fail {
						failed++
					}
				}
				return &exitError{code: 1, err: fmt.Errorf("%d of %d checks failed", failed, len(rep.Checks))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks as one JSON object")
	return cmd
}

// doctorEnv is what doctor checks: the configuration as the other
// commands load it (flags included) — or, when it is refused, the
// refusal and the defaults, so the rest is still checked.
func (g *globalFlags) doctorEnv() doctor.Env {
	env := doctor.Env{SessionsDir: g.env.SessionsDir(), Logger: g.logger(), Version: g.version}
	cfg, err := g.loadConfig()
	if err != nil {
		g.logger().Error("configuration rejected", "version", g.version, "command", g.command, "err", err.Error())
		env.ConfigErr, env.ConfigFile = err, g.configFile
		cfg, _ = config.Load(g.defaults, os.DevNull, g.env) // nil when even the environment is refused
	}
	if cfg != nil && cfg.File != "" {
		env.ConfigFile = cfg.File
	}
	env.Config = cfg
	return env
}

// printDoctor writes one line per check — ✓, ✗ or – (does not apply), its
// name, what it found — and under a failure its fix, all within width,
// then how many failed.
func printDoctor(w io.Writer, rep doctor.Report, width int) {
	marks := map[doctor.Status]string{doctor.OK: "✓", doctor.Fail: "✗", doctor.Skip: "–"}
	failed := 0
	for _, r := range rep.Checks {
		fmt.Fprint(w, wrapIndented(text.Clean(r.Name+": "+r.Detail), width, marks[r.Status]+" ", "    "))
		if r.Status == doctor.Fail {
			failed++
			if r.Fix != "" {
				fmt.Fprint(w, wrapIndented(text.Clean(r.Fix), width, "    → ", "      "))
			}
		}
	}
	took := (time.Duration(rep.ElapsedMS) * time.Millisecond).Round(100 * time.Millisecond)
	if failed == 0 {
		fmt.Fprintf(w, "no check failed (%d checks, %s)\n", len(rep.Checks), took)
		return
	}
	fmt.Fprintf(w, "%d of %d checks failed (%s)\n", failed, len(rep.Checks), took)
}

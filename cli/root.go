// Package cli is the chorus command line: the root command (the chat TUI)
// and one file per subcommand — run, models, skills, config, serve, eval,
// mcp, man — with what only the command line needs: the `chorus run`
// printer, piped stdin, the log file and the version. main.go calls Main;
// the engine and the chat service come from package app.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/text"
	"github.com/chorusai/chorus/ui/theme"
)

// Options are what the chorus binary hands the commands.
type Options struct {
	// Defaults is config.yaml, the documented defaults (main embeds it).
	Defaults []byte
	// Version is the release version stamped into the binary ("" for
	// other builds: the version then says what the toolchain recorded).
	Version string
	// ResultTransport carries the downloads of files that providers
	// answer with by URL (app.Options.ResultTransport); nil dials public
	// addresses only. Tests point it at their fake CDN.
	ResultTransport http.RoundTripper
	// Environ is the environment the commands read their configuration
	// from ("NAME=value" each): os.Environ() in the process, a test's own
	// few variables in a test (config.Env). nil is an empty one.
	Environ []string
}

// Main runs the command line args and returns the process's exit status
// (see execute).
func Main(ctx context.Context, opts Options, args []string) int {
	return execute(ctx, newRootCmd(opts), args)
}

// exitError carries a process exit code with its one-line cause.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// globalFlags are the flags every command shares, and what every command
// sets up from them before it runs.
type globalFlags struct {
	configFile string
	model      string
	host       string
	mode       string
	resume     string
	// system and role give the TUI's answers an instruction, as chorus
	// run's --system and --role do.
	system, role string
	// replay plays a recorded chat back in the TUI instead of talking to
	// the controller server and the endpoints (--replay, --replay-speed).
	replay app.Replay
	// debug raises the log file to debug level, shows the raw controller
	// prompts and replies in `chorus run`, and opens the TUI with /debug on.
	debug bool

	// log writes to the log file; command is the running command's path
	// ("chorus run"), for its first record. Both are set before RunE.
	log     *slog.Logger
	command string

	// defaults is config.yaml's text; version the build's version
	// (Version), for the log, --version and what Chorus tells servers.
	defaults []byte
	version  string
	// downloads is Options.ResultTransport, for every App.
	downloads http.RoundTripper
	// reads are variables the command reads itself (--token-env's):
	// config.Load's check of the CHORUS_ variables accepts them.
	reads []string
	// env is Options.Environ: where the configuration, the XDG
	// directories and the variables the commands name are read.
	env config.Env
}

// startLog opens the log file for the command about to run.
func (g *globalFlags) startLog(cmd *cobra.Command) {
	g.log, _ = openLog(g.env.StateDir(), g.debug)
	g.command = cmd.CommandPath()
}

// logger is the log file's logger, or one that discards before startLog.
func (g *globalFlags) logger() *slog.Logger {
	if g.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return g.log
}

// newApp builds the App a front end runs on, with the command's log file,
// the version and the binary's result transport; close it when the
// command ends.
func (g *globalFlags) newApp(cfg *config.Config, opts app.Options) (*app.App, error) {
	opts.Logger, opts.Version, opts.ResultTransport = g.logger(), g.version, g.downloads
	return app.New(cfg, opts)
}

// load reads the configuration, applies the flags, and records the start
// in the log file.
func (g *globalFlags) load() (*config.Config, error) {
	file := g.configFile
	if file == "" {
		file = filepath.Join(g.env.ConfigDir(), "config.yaml")
	}
	cfg, err := g.loadConfig()
	if err != nil {
		g.logger().Error("configuration rejected", "version", g.version, "command", g.command, "config", file, "err", err.Error())
		return nil, err
	}
	g.logger().Info("chorus started", "version", g.version, "command", g.command, "config", file,
		"mode", cfg.InferenceMode, "controller", cfg.Controller.Model, "host", cfg.Controller.Host, "debug", g.debug)
	return cfg, nil
}

func (g *globalFlags) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(g.defaults, g.configFile, g.env, g.reads...)
	if err == nil {
		err = cfg.CheckOpenAITasks(openai.Supports, openai.Tasks())
	}
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	// Key bindings are configuration like any other key: a bad one stops
	// every command (and `chorus config` names it), not only the TUI.
	if _, err := theme.NewKeyMap(cfg.UI.Keys); err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	if g.debug {
		cfg.UI.Debug = true
	}
	if g.model != "" {
		cfg.Controller.Model = g.model
	}
	if g.host != "" {
		h, err := config.NormalizeHost(cfg.Controller.Kind, g.host)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("--host: %w", err)}
		}
		cfg.Controller.Host = h
	}
	if g.mode != "" {
		if err := cfg.SetMode(g.mode); err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("--mode: %w", err)}
		}
	}
	return cfg, nil
}

func newRootCmd(opts Options) *cobra.Command {
	g := &globalFlags{defaults: opts.Defaults, version: chorusVersion(opts.Version), downloads: opts.ResultTransport, env: config.EnvOf(opts.Environ)}
	root := &cobra.Command{
		Use:   "chorus",
		Short: "Chat with a local LLM that plans, picks expert models and runs them for you",
		Long: `Chorus is a terminal chat application. A local LLM (the controller, served by Ollama or another
LLM server) plans each request into tasks, picks an expert model for every task, runs the tasks on local or Hugging Face
inference endpoints, and writes the answer from their results.

Run without arguments to open the chat.`,
		Args:          noSubcommand,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       g.version,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			g.startLog(cmd)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			system, err := answerSystem(cfg, g.system, g.role)
			if err != nil {
				return err
			}
			a, err := g.newApp(cfg, app.Options{Replay: g.replay})
			if err != nil {
				return err
			}
			defer a.Close()
			resume := g.resume
			if resume != "" {
				// A title, or the start of an id, names a session too;
				// of several matches the newest, the others listed
				// before the TUI opens.
				if resume, err = findSession(&a.Service().Library, resume, true, cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			return runTUI(cmd.Context(), a, resume, g.model, system)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.configFile, "config", "", "config file (default $XDG_CONFIG_HOME/chorus/config.yaml)")
	pf.StringVarP(&g.model, "model", "m", "", "controller model (overrides controller.model)")
	pf.StringVar(&g.host, "host", "", "controller server URL (overrides controller.host and OLLAMA_HOST)")
	pf.StringVar(&g.mode, "mode", "", "inference mode: local, huggingface or hybrid")
	pf.BoolVar(&g.debug, "debug", false, "debug detail: the raw controller prompts and replies, and debug records in the log file ($XDG_STATE_HOME/chorus/chorus.log)")
	root.Flags().StringVar(&g.resume, "resume", "", `reopen a saved session by id or title ("latest" for the newest)`)
	root.Flags().StringVar(&g.system, "system", "", "an instruction for every answer of the chat, read first by the answer stage (as chorus run --system)")
	root.Flags().StringVar(&g.role, "role", "", "a saved instruction for every answer: the one response.roles names NAME (as chorus run --role)")
	replayFlags(root, &g.replay)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: 2, err: err} })
	root.AddCommand(newRunCmd(g), newModelsCmd(g), newSkillsCmd(g), newConfigCmd(g), newServeCmd(g), newEvalCmd(g), newMCPCmd(g), newManCmd(g), newSessionsCmd(g), newDoctorCmd(g))
	reflowLong(root)
	return root
}

// reflowLong joins the lines of each paragraph of every command's Long
// help into one. The help renderer wraps paragraphs to the terminal, but
// it keeps the line breaks the source has; lines broken for a 110-column
// editor then come out ragged at 80 columns (a long line wrapped, then a
// short one). Blank lines still separate paragraphs.
func reflowLong(cmd *cobra.Command) {
	paras := strings.Split(cmd.Long, "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	cmd.Long = strings.Join(paras, "\n\n")
	for _, c := range cmd.Commands() {
		reflowLong(c)
	}
}

// execute runs the command line args with Fang's conventions — `--version`
// with the build's version, `completion bash|zsh|fish|powershell`, styled
// help — and returns the exit
// status: 0, 1 when the work failed, 2 for bad usage or configuration, 130
// when interrupted. The one-line cause goes to the command's stderr.
func execute(ctx context.Context, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	if root.OutOrStdout() == io.Writer(os.Stdout) {
		root.SetOut(&helpOut{f: os.Stdout}) // a test's own writer stays
	}
	code := 0
	err := fang.Execute(ctx, root,
		fang.WithVersion(root.Version),
		fang.WithoutManpage(), // ours is listed, with a clean header (cmd_man.go)
		fang.WithErrorHandler(func(w io.Writer, _ fang.Styles, err error) { code = reportError(w, err) }),
	)
	if err != nil && code == 0 {
		code = 1
	}
	return code
}

// noSubcommand refuses words that name no command ("chorus stats") as bad
// usage, exit status 2, naming the commands there are.
func noSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return &exitError{code: 2, err: fmt.Errorf("unknown command %q for %q (commands: %s) — see %s --help",
		args[0], cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())}
}

// reportError writes err's one-line cause to w, as a terminal may show it,
// and returns the exit status it carries.
func reportError(w io.Writer, err error) int {
	var ee *exitError
	if !errors.As(err, &ee) || ee.err != nil {
		// The cause may quote a server, a model or a file name: no escape
		// sequence in it reaches the terminal.
		fmt.Fprintln(w, "chorus:", text.Clean(err.Error()))
	}
	return exitCode(err)
}

// exitCode is the exit status err carries: an exitError's, 2 for bad usage
// or configuration (app.UsageError), else 1.
func exitCode(err error) int {
	var ee *exitError
	var ue *app.UsageError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// replayFlags adds --replay and --replay-speed to cmd, into r.
func replayFlags(cmd *cobra.Command, r *app.Replay) {
	cmd.Flags().StringVar(&r.Path, "replay", "", "replay a recorded chat (made with /record or chorus run --record): no model or network is used")
	cmd.Flags().Float64Var(&r.Speed, "replay-speed", 1, "pace of --replay: 1 as recorded, 2 twice as fast, 0 without waiting")
}

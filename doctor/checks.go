package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/mcp"
)

// Env is what the checks are built from.
type Env struct {
	// Config is the configuration to check. When the user's was refused
	// (ConfigErr), it is the defaults', so the other checks still run; nil
	// when even those could not be read — the checks that need it skip.
	Config *config.Config
	// ConfigFile is the file the configuration was read from ("" when
	// there is none), ConfigErr why it was refused (nil: it was not).
	ConfigFile string
	ConfigErr  error
	// SessionsDir is where the sessions are kept.
	SessionsDir string
	// LookPath finds a program; nil means the PATH (exec.LookPath).
	LookPath func(string) (string, error)
	// HTTPClient reaches the Hub and the router; nil means a plain client.
	HTTPClient *http.Client
	// Logger is the log file's; nil discards. Version is Chorus's, told
	// to MCP servers.
	Logger  *slog.Logger
	Version string
}

// Checks are the checks of env, in the order they are shown: the
// configuration, the controller, Hugging Face, the local programs (every
// program the command endpoint drives), the MCP servers (each configured
// one), the folders Chorus writes.
func Checks(env Env) []Check {
	if env.Logger == nil {
		env.Logger = slog.New(slog.DiscardHandler)
	}
	if env.HTTPClient == nil {
		env.HTTPClient = &http.Client{}
	}
	out := []Check{configCheck(env)}
	cfg := env.Config
	if cfg == nil {
		return out
	}
	out = append(out, controllerChecks(env)...)
	out = append(out, huggingFaceChecks(env)...)
	out = append(out, programChecks(env)...)
	out = append(out, mcpChecks(env)...)
	out = append(out,
		folderCheck("folder.sessions", "sessions folder", env.SessionsDir, "make it writable, or set XDG_DATA_HOME to a folder that is"),
		folderCheck("folder.outputs", "outputs folder", cfg.OutputDir, "make it writable, or set output_dir (or chorus run --out) to a folder that is"))
	return out
}

// configCheck says whether the configuration file's keys and values were
// accepted (config.Load checks every key, at every depth).
func configCheck(env Env) Check {
	return Check{ID: "config", Name: "configuration", Run: func(context.Context) Result {
		dir := "" // where the file is looked for: the configuration's environment says
		if env.Config != nil {
			dir = env.Config.Env.ConfigDir()
		}
		file := cmp.Or(env.ConfigFile, filepath.Join(dir, "config.yaml"))
		switch {
		case env.ConfigErr != nil:
			r := fromError(env.ConfigErr)
			if r.Fix == "" {
				r.Fix = "edit " + file + " (config.yaml documents every key); chorus config shows what is in effect"
			}
			if env.Config != nil {
				r.Detail += " — the other checks use the defaults"
			}
			return r
		case env.ConfigFile == "":
			return Result{Status: OK, Detail: "no file at " + file + ": the defaults, and CHORUS_* variables"}
		}
		return Result{Status: OK, Detail: file + ": every key known, every value valid"}
	}}
}

// programChecks are one check per program the command endpoint drives —
// its list, so a program added there is checked here too — or one that
// says the endpoint is off.
func programChecks(env Env) []Check {
	if !env.Config.Command.Enabled {
		return []Check{{ID: "programs", Name: "local programs", Run: func(context.Context) Result {
			return Result{Status: Skip, Detail: "not used: command.enabled is false"}
		}}}
	}
	// The presets and the programs the configuration declares; a
	// declaration that cannot run is the config check's to report.
	ep := command.New(command.Options{LookPath: env.LookPath, Programs: env.Config.Command.Programs})
	var out []Check
	for _, p := range ep.Declared() {
		out = append(out, Check{ID: "program." + p.Name, Name: p.Name, Hung: p.Name + " does not say its version — reinstall it (" + p.Fix + ")",
			Run: func(ctx context.Context) Result {
				path, version, err := ep.Probe(ctx, p.Name)
				if err == nil {
					// On PATH is not enough: the check selection makes (its
					// model files, ffmpeg for its inputs, a language pair).
					err = ep.Check(ctx, p.Tasks[0], p.Name)
				}
				if err != nil {
					return missingProgram(p, err)
				}
				if version == "" {
					return Result{Status: OK, Detail: "at " + path + " (it gives no version)"}
				}
				return Result{Status: OK, Detail: version + " at " + path}
			}})
	}
	return out
}

// missingProgram is a program that cannot run here. A preset is optional
// — Chorus ships it so that it works once installed — so its absence is
// a skip that says how to install it; a program the user declared is
// expected to run, so its absence fails the check.
func missingProgram(p command.Program, err error) Result {
	r := fromError(err) // the detail before " — ", the fix after
	r.Detail = strings.TrimPrefix(r.Detail, "missing: ") + " (it would do " + joinTasks(p.Tasks) + ")"
	r.Fix = p.Fix + " — or leave it out: those tasks then use other models"
	if p.Preset {
		r.Status = Skip
		r.Detail = "optional, " + r.Detail
	}
	return r
}

// mcpChecks start (or reach) each configured MCP server on its own, as a
// chat would, and count its tools.
func mcpChecks(env Env) []Check {
	var out []Check
	for _, s := range app.MCPServers(env.Config) {
		hung := "the server does not answer — run its command (or reach its URL) by hand to see why; chorus mcp list starts it too"
		out = append(out, Check{ID: "mcp." + s.Name, Name: "MCP server " + s.Name, Hung: hung,
			Run: func(ctx context.Context) Result {
				deadline, _ := ctx.Deadline()
				ep := mcp.New(mcp.Options{Servers: []mcp.Server{s}, HTTPClient: env.HTTPClient, Version: env.Version, Logger: env.Logger,
					StartTimeout: max(timeUntil(deadline)-grace, grace)})
				defer func() { go ep.Close() }() // stopping a hung server must not hold the check
				began, started := time.Now(), make(chan struct{})
				go func() { ep.Start(ctx); close(started) }()
				select {
				case <-started:
				case <-ctx.Done():
					took := time.Since(began).Round(100 * time.Millisecond)
					return Result{Status: Fail, Detail: "started, but did not finish the MCP handshake and list its tools within " + took.String(), Fix: hung}
				}
				st := ep.Status()[0]
				if st.State != "running" {
					r := fromError(errors.New(st.Error))
					r.Detail = st.State + ": " + r.Detail
					return r
				}
				who := ""
				if st.Server != "" {
					who = " (" + st.Server + ")"
				}
				return Result{Status: OK, Detail: fmt.Sprintf("running%s, %d tool(s)", who, len(st.Tools))}
			}})
	}
	return out
}

// folderCheck proves dir writable the way Chorus writes it: the folder
// made if missing, a file created and removed.
func folderCheck(id, name, dir, fix string) Check {
	return Check{ID: id, Name: name, Run: func(context.Context) Result {
		if dir == "" {
			return Result{Status: Skip, Detail: "no folder configured"}
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return Result{Status: Fail, Detail: "cannot make " + dir + ": " + errText(err), Fix: fix}
		}
		f, err := os.CreateTemp(dir, ".chorus-doctor-*")
		if err != nil {
			return Result{Status: Fail, Detail: "cannot write in " + dir + ": " + errText(err), Fix: fix}
		}
		_ = f.Close()
		_ = os.Remove(f.Name())
		return Result{Status: OK, Detail: "writable: " + dir}
	}}
}

// errText is an os error without the path it repeats.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

package config

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// Env is the environment Chorus reads its settings from — CHORUS_*,
// OLLAMA_HOST, HF_TOKEN, HF_HOME, the XDG directories and HOME — by name.
// The process passes EnvOf(os.Environ()); a test passes the few variables
// it sets, and so shares no state with the tests running beside it.
type Env map[string]string

// EnvOf is the environment of environ, "NAME=value" each as os.Environ
// returns them.
func EnvOf(environ []string) Env {
	env := Env{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// Getenv is os.Getenv over e.
func (e Env) Getenv(name string) string { return e[name] }

// LookupEnv is os.LookupEnv over e.
func (e Env) LookupEnv(name string) (string, bool) {
	v, ok := e[name]
	return v, ok
}

// Where Chorus keeps its files: the XDG directories, each with a fallback
// so a missing home directory never stops a run.

// ConfigDir is $XDG_CONFIG_HOME/chorus (or the platform's equivalent).
func (e Env) ConfigDir() string { return e.chorusDir("XDG_CONFIG_HOME", e.userDir(false), "config") }

// CacheDir is $XDG_CACHE_HOME/chorus (or the platform's equivalent).
func (e Env) CacheDir() string { return e.chorusDir("XDG_CACHE_HOME", e.userDir(true), "cache") }

// DataDir is $XDG_DATA_HOME/chorus, defaulting to ~/.local/share/chorus.
func (e Env) DataDir() string {
	return e.chorusDir("XDG_DATA_HOME", e.inHome(".local", "share"), "data")
}

// StateDir is $XDG_STATE_HOME/chorus, defaulting to ~/.local/state/chorus:
// what Chorus keeps about its own runs (the log file), as opposed to the
// user's data.
func (e Env) StateDir() string {
	return e.chorusDir("XDG_STATE_HOME", e.inHome(".local", "state"), "state")
}

// SessionsDir is where the user's saved sessions are kept.
func (e Env) SessionsDir() string { return filepath.Join(e.DataDir(), "sessions") }

func (e Env) chorusDir(xdg, base, name string) string {
	switch {
	case e[xdg] != "":
		return filepath.Join(e[xdg], "chorus")
	case base != "":
		return filepath.Join(base, "chorus")
	}
	return filepath.Join(os.TempDir(), "chorus-"+name)
}

// userDir is os.UserConfigDir (or, for cache, os.UserCacheDir) read from
// e; "" without a home.
func (e Env) userDir(cache bool) string {
	xdg, win, mac, unix := "XDG_CONFIG_HOME", "AppData", "Application Support", ".config"
	if cache {
		xdg, win, mac, unix = "XDG_CACHE_HOME", "LocalAppData", "Caches", ".cache"
	}
	switch {
	case runtime.GOOS == "windows":
		return e[win]
	case runtime.GOOS == "darwin":
		return e.inHome("Library", mac)
	case e[xdg] != "":
		return e[xdg]
	}
	return e.inHome(unix)
}

// inHome is the path under the home directory (os.UserHomeDir read from
// e), "" without one.
func (e Env) inHome(path ...string) string {
	home := e["HOME"]
	if runtime.GOOS == "windows" {
		home = e["USERPROFILE"]
	}
	if home == "" {
		return ""
	}
	return filepath.Join(append([]string{home}, path...)...)
}

// Home is the user's home folder, os.UserHomeDir read from e: "~" to
// Chorus and to the tools it starts, which inherit the environment; ""
// without one.
func (e Env) Home() string { return e.inHome() }

// expandHome expands a leading ~ of p.
func (e Env) expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || rest[0] == '/') && e.inHome() != "" {
		return e.inHome(rest)
	}
	return p
}

// The CHORUS_ namespace of the environment is configuration: a variable
// there that nothing reads is a typo (CHORUS_CONTROLLER_MODLE), refused
// as an unknown key of the file is, with the same kind of suggestion.
// What Chorus reads there:
//   - CHORUS_<KEY> for every key of config.yaml (controller.model is
//     CHORUS_CONTROLLER_MODEL);
//   - CHORUS_OPENAI_<NAME>_KEY and CHORUS_MCP_<NAME>_KEY, a server's key
//     (OpenAIKeyVar, MCPKeyVar);
//   - the variables the configuration names itself (key_env,
//     http_token_env, ${VAR} in an mcp server's env) and those the
//     command line names (--token-env): Load's reads;
//   - CHORUS_IMAGES, the TUI's graphics protocol (ui/media.EnvImages);
//   - developerEnv, read only by the project's tests and tools.
//
// Variables outside the namespace are other programs' too (OLLAMA_HOST,
// HF_TOKEN, XDG_*, NO_COLOR): Chorus honours the ones it documents and
// judges none. An empty variable sets nothing, here as for the keys.

// programEnv are the CHORUS_ variables Chorus reads that are no key of
// config.yaml.
var programEnv = []string{
	"CHORUS_IMAGES", // ui/media.EnvImages: kitty, iterm2, sixel, blocks or off
}

// developerEnv are the CHORUS_ variables only the project's tests,
// benchmarks and tools read: a developer's shell may export them (.ci/run
// and DEVELOPERS.md do, for the real Ollama and the npm MCP servers), and
// a test may run the chorus binary under them. They configure nothing.
// TestEveryChorusVariableIsKnown keeps this list complete.
var developerEnv = []string{
	"CHORUS_OLLAMA_BIN",           // internal/ollamatest: the real Ollama server
	"CHORUS_MCP_NODE",             // internal/mcptest: the npm MCP servers' folder
	"CHORUS_MCP_FAKE",             // internal/mcptest: the fake MCP server's mode
	"CHORUS_MCP_FAKE_BIG",         // internal/mcptest: the fake's big result
	"CHORUS_MCP_FAKE_CANCELLED",   // internal/mcptest: the fake's cancellation file
	"CHORUS_BENCH_BINARY",         // cli benchmarks: another build to measure
	"CHORUS_LONGCHAT_TURNS",       // ui benchmark: turns of the long chat
	"CHORUS_LONGCHAT_HEAPPROFILE", // ui benchmark: heap profile file
	"CHORUS_LOAD_CHATS",           // sshd load benchmark: chat counts
	"CHORUS_LOAD_METRICS",         // sshd load benchmark: scrape the metrics
	"CHORUS_SCREENSHOT",           // ui: the docs screenshot's file
	"CHORUS_SCREENSHOT_TOOL",      // ui: the screenshot tool
	"CHORUS_PLAN_FORMS",           // eval: where the plan-token measurement writes
}

// developerPrefix marks variables a test sets for itself (a controller
// kind to run against, a token for --token-env).
const developerPrefix = "CHORUS_TEST_"

// checkEnv refuses a non-empty CHORUS_ variable of c.Env that Chorus does
// not read (see above), naming the variable it most likely meant. bound
// are the CHORUS_<KEY> variables; reads the variables the caller reads
// itself.
func (c *Config) checkEnv(bound, reads []string) error {
	servers := c.serverKeyVars()
	known := slices.Concat(bound, reads, programEnv, developerEnv, c.namedEnv(), servers)
	var unknown []string
	for name, value := range c.Env {
		switch {
		case !strings.HasPrefix(name, "CHORUS_") || value == "" || slices.Contains(known, name) || strings.HasPrefix(name, developerPrefix):
		case serverKeyVar.MatchString(name) && nearestVar(name, servers) == "":
			// The key of a server this configuration does not list
			// (another file's, kept in the shell): not a typo of one it
			// lists.
		default:
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	name := slices.Min(unknown)
	msg := "unknown variable: CHORUS_<KEY> sets a key of config.yaml (controller.model is CHORUS_CONTROLLER_MODEL) — unset it"
	if near := nearestVar(name, slices.Concat(bound, servers, programEnv)); near != "" {
		msg = "unknown variable — did you mean " + near + "? (CHORUS_<KEY> sets a key of config.yaml; unset it otherwise)"
	}
	return &Error{Key: name, Source: "environment", Msg: msg}
}

// nearestVar is the variable of candidates name most likely meant
// (nearest, on what follows CHORUS_), or "".
func nearestVar(name string, candidates []string) string {
	rest := make([]string, len(candidates))
	for i, c := range candidates {
		rest[i] = strings.TrimPrefix(c, "CHORUS_")
	}
	if near := nearest(strings.TrimPrefix(name, "CHORUS_"), rest); near != "" {
		return "CHORUS_" + near
	}
	return ""
}

// envVar is the variable that sets key: CHORUS_<KEY>, upper-cased, with
// "_" for ".".
func envVar(key string) string {
	return "CHORUS_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// namedEnv are the variables the configuration names for Chorus to read:
// key_env, http_token_env, and ${VAR} in an mcp server's env.
func (c *Config) namedEnv() []string {
	names := []string{c.Controller.KeyEnv, c.Serve.HTTPTokenEnv}
	for _, s := range c.OpenAI {
		names = append(names, s.KeyEnv)
	}
	for _, s := range c.MCP {
		names = append(names, s.KeyEnv)
		for _, v := range s.EnvFrom {
			os.Expand(v, func(name string) string {
				names = append(names, name)
				return ""
			})
		}
	}
	return names
}

// serverKeyVars are the key variables of the servers the configuration
// lists (OpenAIKeyVar, MCPKeyVar), sorted.
func (c *Config) serverKeyVars() []string {
	var vars []string
	for _, s := range c.OpenAI {
		vars = append(vars, OpenAIKeyVar(s.Name))
	}
	for _, s := range c.MCP {
		vars = append(vars, MCPKeyVar(s.Name))
	}
	slices.Sort(vars)
	return vars
}

// serverKeyVar matches the form of a server's key variable.
var serverKeyVar = regexp.MustCompile(`^CHORUS_(OPENAI|MCP)_.+_KEY$`)

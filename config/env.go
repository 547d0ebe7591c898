package config

import (
	"cmp"
	"maps"
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

// ConfigDir is $XDG_CONFIG_HOME/chorus (or the platform's equivalent, as
// os.UserConfigDir).
func (e Env) ConfigDir() string { return e.chorusDir("config") }

// CacheDir is $XDG_CACHE_HOME/chorus (or the platform's equivalent, as
// os.UserCacheDir).
func (e Env) CacheDir() string { return e.chorusDir("cache") }

// DataDir is $XDG_DATA_HOME/chorus, defaulting to ~/.local/share/chorus.
func (e Env) DataDir() string { return e.chorusDir("data") }

// StateDir is $XDG_STATE_HOME/chorus, defaulting to ~/.local/state/chorus:
// what Chorus keeps about its own runs (the log file), as opposed to the
// user's data.
func (e Env) StateDir() string { return e.chorusDir("state") }

// SessionsDir is where the user's saved sessions are kept.
func (e Env) SessionsDir() string { return filepath.Join(e.DataDir(), "sessions") }

// folders are where each of Chorus's folders goes: in the folder its XDG
// variable names, else the platform's — the variable windows names on
// Windows, darwin under the home on macOS, else unix under the home.
var folders = map[string]struct{ xdg, windows, darwin, unix string }{
	"config": {"XDG_CONFIG_HOME", "AppData", "Library/Application Support", ".config"},
	"cache":  {"XDG_CACHE_HOME", "LocalAppData", "Library/Caches", ".cache"},
	"data":   {"XDG_DATA_HOME", "", ".local/share", ".local/share"},
	"state":  {"XDG_STATE_HOME", "", ".local/state", ".local/state"},
}

// chorusDir is Chorus's folder name (folders), else (no home) a temporary
// chorus-<name>.
func (e Env) chorusDir(name string) string {
	f := folders[name]
	base := e.inHome(f.unix)
	switch {
	case runtime.GOOS == "windows" && f.windows != "":
		base = e[f.windows]
	case runtime.GOOS == "darwin":
		base = e.inHome(f.darwin)
	}
	if base = cmp.Or(e[f.xdg], base); base != "" {
		return filepath.Join(base, "chorus")
	}
	return filepath.Join(os.TempDir(), "chorus-"+name)
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

// cachedHFToken reads the token `huggingface-cli login` stores: in
// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface
// (huggingface_hub's places, the same on every platform).
func (e Env) cachedHFToken() (token, source string) {
	home := e["HF_HOME"]
	if cache := cmp.Or(e["XDG_CACHE_HOME"], e.inHome(".cache")); home == "" && cache != "" {
		home = filepath.Join(cache, "huggingface")
	}
	if home == "" {
		return "", ""
	}
	p := filepath.Join(home, "token")
	if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b)), p
	}
	return "", ""
}

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
	named, servers := c.readEnv()
	known := slices.Concat(bound, reads, programEnv, developerEnv, named, servers)
	for _, name := range slices.Sorted(maps.Keys(c.Env)) {
		// The key of a server this configuration does not list (another
		// file's, kept in the shell) is no typo of one it lists.
		if strings.HasPrefix(name, "CHORUS_") && !strings.HasPrefix(name, developerPrefix) && c.Env[name] != "" && !slices.Contains(known, name) &&
			(!serverKeyVar.MatchString(name) || nearest(name, "CHORUS_", servers) != "") {
			msg := "unknown variable: CHORUS_<KEY> sets a key of config.yaml (controller.model is CHORUS_CONTROLLER_MODEL) — unset it"
			if near := nearest(name, "CHORUS_", slices.Concat(bound, servers, programEnv)); near != "" {
				msg = "unknown variable — did you mean " + near + "? (CHORUS_<KEY> sets a key of config.yaml; unset it otherwise)"
			}
			return &Error{Key: name, Source: "environment", Msg: msg}
		}
	}
	return nil
}

// envVar is the variable that sets key: CHORUS_<KEY>, upper-cased, with
// "_" for ".".
func envVar(key string) string {
	return "CHORUS_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// readEnv are the variables the configuration names for Chorus to read
// (key_env, http_token_env, ${VAR} in an mcp server's env) and the key
// variables of the servers it lists (OpenAIKeyVar, MCPKeyVar), sorted.
func (c *Config) readEnv() (named, servers []string) {
	named = []string{c.Controller.KeyEnv, c.Serve.HTTPTokenEnv}
	for _, s := range c.OpenAI {
		named, servers = append(named, s.KeyEnv), append(servers, OpenAIKeyVar(s.Name))
	}
	for _, s := range c.MCP {
		named, servers = append(named, s.KeyEnv), append(servers, MCPKeyVar(s.Name))
		for _, v := range s.EnvFrom {
			os.Expand(v, func(name string) string {
				named = append(named, name)
				return ""
			})
		}
	}
	slices.Sort(servers)
	return named, servers
}

// serverKeyVar matches the form of a server's key variable.
var serverKeyVar = regexp.MustCompile(`^CHORUS_(OPENAI|MCP)_.+_KEY$`)

package config

import (
	"os"
	"slices"
	"sort"
	"strings"
)

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

// checkEnv refuses a non-empty CHORUS_ variable of environ that Chorus
// does not read (see above), naming the variable it most likely meant.
// bound are the CHORUS_<KEY> variables; reads the variables the caller
// reads itself.
func (c *Config) checkEnv(environ, bound, reads []string) error {
	known := map[string]bool{}
	for _, list := range [][]string{bound, reads, programEnv, developerEnv, c.namedEnv()} {
		for _, v := range list {
			known[v] = true
		}
	}
	servers := c.serverKeyVars()
	var unknown []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "CHORUS_") || value == "" || known[name] || servers[name] || strings.HasPrefix(name, developerPrefix) {
			continue
		}
		if serverKeyVar(name) && nearestVar(name, mapKeys(servers)) == "" {
			// The key of a server this configuration does not list
			// (another file's, kept in the shell): not a typo of one
			// it lists.
			continue
		}
		unknown = append(unknown, name)
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	name := unknown[0]
	candidates := slices.Concat(bound, mapKeys(servers), programEnv)
	msg := "unknown variable: CHORUS_<KEY> sets a key of config.yaml (controller.model is CHORUS_CONTROLLER_MODEL) — unset it"
	if near := nearestVar(name, candidates); near != "" {
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
// lists (OpenAIKeyVar, MCPKeyVar).
func (c *Config) serverKeyVars() map[string]bool {
	vars := map[string]bool{}
	for _, s := range c.OpenAI {
		vars[OpenAIKeyVar(s.Name)] = true
	}
	for _, s := range c.MCP {
		vars[MCPKeyVar(s.Name)] = true
	}
	return vars
}

// serverKeyVar says whether name has the form of a server's key variable.
func serverKeyVar(name string) bool {
	for _, p := range []string{"CHORUS_OPENAI_", "CHORUS_MCP_"} {
		if rest, ok := strings.CutPrefix(name, p); ok && len(rest) > len("_KEY") && strings.HasSuffix(rest, "_KEY") {
			return true
		}
	}
	return false
}

func mapKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

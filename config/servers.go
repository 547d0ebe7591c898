package config

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// The servers the configuration lists: OpenAI-compatible ones (openai),
// whose models become experts for the tasks they serve, and MCP servers
// (mcp), whose tools do. Each has a unique name, a URL (or, for MCP, a
// program to start) and a key read from the file, from the variable its
// key_env names or from CHORUS_<LIST>_<NAME>_KEY.

// OpenAIServer is one entry of the openai list.
type OpenAIServer struct {
	// Name is how messages and the report name the server; empty means
	// openai[N].
	Name string `yaml:"name"`
	// URL is the server's base URL, with or without /v1.
	URL string `yaml:"url"`
	// Key is the bearer token; KeyEnv names a variable holding it instead,
	// read at start, so the file need not hold a secret. With neither,
	// CHORUS_OPENAI_<NAME>_KEY is read (OpenAIKeyVar).
	Key    string `yaml:"key"`
	KeyEnv string `yaml:"key_env"`
	// Voice is the voice text-to-speech asks for (default alloy).
	Voice string `yaml:"voice"`
	// Tasks are the tasks the server serves; empty means the tasks Models
	// names.
	Tasks []string `yaml:"tasks"`
	// Models lists the server's model ids by task.
	Models map[string][]string `yaml:"models"`
}

var notAlnum = regexp.MustCompile(`[^A-Z0-9]+`)

// OpenAIKeyVar is the environment variable that holds the key of the
// OpenAI-compatible server named name when the configuration gives neither
// key nor key_env: CHORUS_OPENAI_<NAME>_KEY, the name upper-cased with
// anything but letters and digits as "_" ("openai[1]" →
// CHORUS_OPENAI_OPENAI_1_KEY, "laptop" → CHORUS_OPENAI_LAPTOP_KEY).
func OpenAIKeyVar(name string) string {
	return "CHORUS_OPENAI_" + strings.Trim(notAlnum.ReplaceAllString(strings.ToUpper(name), "_"), "_") + "_KEY"
}

// CheckOpenAITasks refuses a task of the openai list that an
// OpenAI-compatible server does not serve: supports says which do, all
// names them for the message. Load cannot check it — which tasks the kind
// serves is the openai endpoint's to say, and config imports no endpoint
// kind — so the command line calls it right after Load, and a bad task
// still stops every command, naming its key.
func (c *Config) CheckOpenAITasks(supports func(task string) bool, all []string) error {
	for i, s := range c.OpenAI {
		for _, task := range slices.Sorted(maps.Keys(s.Models)) {
			if !supports(task) {
				return c.bad(fmt.Sprintf("openai[%d].models", i), "unknown task %q (an OpenAI-compatible server serves %s)", task, strings.Join(all, ", "))
			}
		}
	}
	return nil
}

// normalizeOpenAI validates the openai list: a URL for each server, a
// unique name, tasks each with at least one model, and the key read from
// key_env when it names a variable. Which tasks a server may list is
// CheckOpenAITasks's.
func (c *Config) normalizeOpenAI() error {
	for i := range c.OpenAI {
		s, key := &c.OpenAI[i], fmt.Sprintf("openai[%d]", i)
		s.Name = cmp.Or(strings.TrimSpace(s.Name), key)
		j := slices.IndexFunc(c.OpenAI[:i], func(o OpenAIServer) bool { return strings.EqualFold(o.Name, s.Name) })
		// CHORUS_OPENAI_<NAME>_KEY, as every other key has its CHORUS_
		// variable; key_env then names where it came from.
		err := cmp.Or(c.check(j >= 0, key+".name", "%q is also openai[%d]'s name; give each server its own", s.Name, j),
			c.url(key+".url", &s.URL, "is empty; give the server's base URL, e.g. http://localhost:8080 for LocalAI or http://localhost:8000 for vLLM"),
			c.secret(key+".key", &s.Key, &s.KeyEnv, OpenAIKeyVar(s.Name)))
		if err != nil {
			return err
		}
		// The base URL without /v1: the endpoint adds the routes.
		s.URL = strings.TrimSuffix(s.URL, "/v1")
		models := map[string][]string{}
		for task, ids := range s.Models {
			task = strings.ToLower(strings.TrimSpace(task))
			clean := models[task]
			for _, id := range ids {
				if id = strings.TrimSpace(id); id != "" && !slices.Contains(clean, id) {
					clean = append(clean, id)
				}
			}
			models[task] = clean
		}
		if len(s.Tasks) == 0 {
			s.Tasks = slices.Sorted(maps.Keys(models))
		}
		if len(s.Tasks) == 0 {
			return c.bad(key+".models", "is empty; list the model ids the server serves by task, e.g. models: {text-to-image: [stablediffusion]}")
		}
		for j, task := range s.Tasks {
			if s.Tasks[j] = strings.ToLower(strings.TrimSpace(task)); len(models[s.Tasks[j]]) == 0 {
				return c.bad(key+".models."+s.Tasks[j], "names no model; list the ids the server serves for %s (GET /v1/models shows them)", s.Tasks[j])
			}
		}
		for task := range models {
			if !slices.Contains(s.Tasks, task) {
				return c.bad(key+".models."+task, "%s is not in openai[%d].tasks; add it there or drop these models", task, i)
			}
		}
		s.Models = models
	}
	return nil
}

// MCPServer is one entry of the mcp list: an MCP server whose tools become
// Chorus's experts. A stdio server is a program Chorus starts (Command,
// Args, Env); an HTTP one a URL (with Headers, Key or KeyEnv).
type MCPServer struct {
	// Name prefixes the server's tools: "<name>.<tool>". Letters, digits,
	// _ and -.
	Name string `yaml:"name"`
	// Command and Args start a stdio server (no shell).
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	// Env is what a stdio server's environment holds besides PATH, HOME
	// and the locale; a value may name a variable of Chorus's own, as
	// ${GITHUB_TOKEN}: secrets reach a server only this way.
	Env map[string]string `yaml:"env"`
	// URL reaches a streamable HTTP server (an older HTTP+SSE one too).
	URL string `yaml:"url"`
	// Headers are sent with every request to an HTTP server.
	Headers map[string]string `yaml:"headers"`
	// Key is sent as "Authorization: Bearer <key>"; KeyEnv names the
	// variable holding it instead. With neither, CHORUS_MCP_<NAME>_KEY is
	// read; Hugging Face's server (huggingface.co/mcp) gets the Hugging
	// Face token.
	Key    string `yaml:"key"`
	KeyEnv string `yaml:"key_env"`
	// Transport is streamable (with an HTTP+SSE fallback when left out)
	// or sse, for an HTTP server.
	Transport string `yaml:"transport"`
	// Tools, when set, are the only tools of the server Chorus uses (a
	// server with many tools costs planning-prompt room).
	Tools []string `yaml:"tools"`
	// Tasks maps tasks of the catalog onto tools of the server, which
	// become candidates in that task's model selection:
	// tasks: {text-to-image: [flux_generate]}.
	Tasks map[string][]string `yaml:"tasks"`
	// Trust says the operator trusts the server's tool annotations: only
	// then does a tool's readOnlyHint let it run without asking (a tool
	// annotated destructive asks whatever this says). Annotations are the
	// server's own claim, and MCP says a client must not rely on them from
	// a server it does not trust.
	Trust bool `yaml:"trust"`

	// KeyFrom says where Key came from (a variable, the Hugging Face
	// token), for messages; never the key itself.
	KeyFrom string `yaml:"-"`
	// EnvFrom holds the values of Env as written, before the variables
	// they name were put in: what `chorus config` shows instead of them.
	EnvFrom map[string]string `yaml:"-"`
}

// HuggingFaceMCP is the URL of Hugging Face's MCP server, the preset an
// entry named huggingface with neither url nor command gets.
const HuggingFaceMCP = "https://huggingface.co/mcp"

var (
	mcpName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// normalizeMCP validates the mcp list: a unique name each, a command or a
// URL (not both), the Hugging Face preset, keys read from their
// variables, ${VAR} in env expanded from Chorus's environment.
func (c *Config) normalizeMCP() error {
	for i := range c.MCP {
		s, key := &c.MCP[i], fmt.Sprintf("mcp[%d]", i)
		s.Name, s.Command, s.URL = strings.TrimSpace(s.Name), strings.TrimSpace(s.Command), strings.TrimSpace(s.URL)
		if s.Name == "huggingface" && s.URL == "" && s.Command == "" {
			s.URL = HuggingFaceMCP
		}
		j := slices.IndexFunc(c.MCP[:i], func(o MCPServer) bool { return strings.EqualFold(o.Name, s.Name) })
		err := cmp.Or(
			c.check(s.Name == "", key+".name", "is empty; name the server (its tools become <name>.<tool>)"),
			c.check(!mcpName.MatchString(s.Name), key+".name", "%q may hold only letters, digits, _ and - (its tools are <name>.<tool>)", s.Name),
			c.check(j >= 0, key+".name", "%q is also mcp[%d]'s name; give each server its own", s.Name, j),
			c.check(s.Command == "" && s.URL == "", key, "has neither command (a program to start) nor url (a server to reach)"),
			c.check(s.Command != "" && s.URL != "", key, "has both command and url; a server is one or the other"),
			c.check(s.Command != "" && (len(s.Headers) > 0 || s.Key != "" || s.KeyEnv != "" || s.Transport != ""), key,
				"is a program Chorus starts (command): headers, key, key_env and transport are for a url"),
			c.check(s.URL != "" && (len(s.Env) > 0 || len(s.Args) > 0), key, "is reached by url: env and args are for a program Chorus starts (command)"),
		)
		if err == nil && s.Command != "" {
			err = c.mcpCommand(s, key)
		} else if err == nil {
			err = c.mcpURL(s, key)
		}
		for task, tools := range s.Tasks {
			err = cmp.Or(err, c.check(len(tools) == 0, key+".tasks."+task, "names no tool; list the tools of %s that can do %s", s.Name, task))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mcpCommand checks a server Chorus starts, and puts in its env the
// variables it names.
func (c *Config) mcpCommand(s *MCPServer, key string) error {
	s.EnvFrom = maps.Clone(s.Env)
	for k, v := range s.Env {
		if !envName.MatchString(k) {
			return c.bad(key+".env", "%q is not a variable name", k)
		}
		s.Env[k] = os.Expand(v, c.Env.Getenv)
	}
	return nil
}

// mcpURL checks a server Chorus reaches, and reads its key: key, key_env,
// CHORUS_MCP_<NAME>_KEY, or for Hugging Face's own server the Hugging
// Face token.
func (c *Config) mcpURL(s *MCPServer, key string) error {
	u, ok := httpURL(s.URL, false)
	if !ok {
		return c.bad(key+".url", "%q is not an http(s) URL", s.URL)
	}
	switch s.Transport = strings.ToLower(strings.TrimSpace(s.Transport)); s.Transport {
	case "", "streamable", "sse":
	case "http", "streamable-http", "streamablehttp":
		s.Transport = "streamable"
	default:
		return c.bad(key+".transport", "%q is not a transport — use streamable or sse (or leave it out: streamable, then sse)", s.Transport)
	}
	v := MCPKeyVar(s.Name)
	switch host := strings.ToLower(u.Hostname()); {
	case s.KeyEnv != "" && s.Key != "":
		return c.bad(key+".key_env", "set key or key_env, not both")
	case s.KeyEnv != "":
		s.Key, s.KeyFrom = strings.TrimSpace(c.Env[s.KeyEnv]), s.KeyEnv
	case s.Key != "":
		s.KeyFrom = key + ".key"
	case slices.ContainsFunc(slices.Collect(maps.Keys(s.Headers)), func(h string) bool { return strings.EqualFold(h, "Authorization") }):
	case strings.TrimSpace(c.Env[v]) != "":
		s.Key, s.KeyFrom = strings.TrimSpace(c.Env[v]), v
	case host == "huggingface.co" || host == "hf.co":
		// Hugging Face's MCP server takes the Hugging Face token.
		s.Key, s.KeyFrom = c.HuggingFace.Token, "HF_TOKEN (or huggingface.token)"
	}
	return nil
}

// MCPKeyVar is the variable an MCP server's key is read from when the
// configuration names none: CHORUS_MCP_<NAME>_KEY.
func MCPKeyVar(name string) string {
	return "CHORUS_MCP_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)) + "_KEY"
}

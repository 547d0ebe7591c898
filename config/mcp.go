package config

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MCPServer is one entry of the mcp list: an MCP server whose tools become
// Chorus's experts. A stdio server is a program Chorus starts (Command,
// Args, Env); an HTTP one a URL (with Headers, Key or KeyEnv).
type MCPServer struct {
	// Name prefixes the server's tools: "<name>.<tool>". Letters, digits,
	// _ and -.
	Name string `yaml:"name" mapstructure:"name"`
	// Command and Args start a stdio server (no shell).
	Command string   `yaml:"command" mapstructure:"command"`
	Args    []string `yaml:"args" mapstructure:"args"`
	// Env is what a stdio server's environment holds besides PATH, HOME
	// and the locale; a value may name a variable of Chorus's own, as
	// ${GITHUB_TOKEN}: secrets reach a server only this way.
	Env map[string]string `yaml:"env" mapstructure:"env"`
	// URL reaches a streamable HTTP server (an older HTTP+SSE one too).
	URL string `yaml:"url" mapstructure:"url"`
	// Headers are sent with every request to an HTTP server.
	Headers map[string]string `yaml:"headers" mapstructure:"headers"`
	// Key is sent as "Authorization: Bearer <key>"; KeyEnv names the
	// variable holding it instead. With neither, CHORUS_MCP_<NAME>_KEY is
	// read; Hugging Face's server (huggingface.co/mcp) gets the Hugging
	// Face token.
	Key    string `yaml:"key" mapstructure:"key"`
	KeyEnv string `yaml:"key_env" mapstructure:"key_env"`
	// Transport is streamable (with an HTTP+SSE fallback when left out)
	// or sse, for an HTTP server.
	Transport string `yaml:"transport" mapstructure:"transport"`
	// Tools, when set, are the only tools of the server Chorus uses (a
	// server with many tools costs planning-prompt room).
	Tools []string `yaml:"tools" mapstructure:"tools"`
	// Tasks maps tasks of the catalog onto tools of the server, which
	// become candidates in that task's model selection:
	// tasks: {text-to-image: [flux_generate]}.
	Tasks map[string][]string `yaml:"tasks" mapstructure:"tasks"`
	// Trust says the operator trusts the server's tool annotations: only
	// then does a tool's readOnlyHint let it run without asking (a tool
	// annotated destructive asks whatever this says). Annotations are the
	// server's own claim, and MCP says a client must not rely on them from
	// a server it does not trust.
	Trust bool `yaml:"trust" mapstructure:"trust"`

	// KeyFrom says where Key came from (a variable, the Hugging Face
	// token), for messages; never the key itself.
	KeyFrom string `yaml:"-" mapstructure:"-"`
	// EnvFrom holds the values of Env as written, before the variables
	// they name were put in: what `chorus config` shows instead of them.
	EnvFrom map[string]string `yaml:"-" mapstructure:"-"`
}

// HuggingFaceMCP is the URL of Hugging Face's MCP server, the preset an
// entry named huggingface with neither url nor command gets.
const HuggingFaceMCP = "https://huggingface.co/mcp"

var mcpName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// mcpKeys are the keys of one mcp list item.
var mcpKeys = []string{"name", "command", "args", "env", "url", "headers", "key", "key_env", "transport", "tools", "tasks", "trust"}

// readMCP reads the mcp list from the user's config file with the file's
// own case (viper lowers map keys, and environment variables and header
// names are not all lower case), refusing unknown keys by name.
func readMCP(data []byte, file string) ([]MCPServer, error) {
	var doc struct {
		MCP yaml.Node `yaml:"mcp"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("config: %s: %w", file, err)
	}
	n := doc.MCP
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, &Error{Key: "mcp", Source: file, Msg: `is a list of servers: write each one as an item, "- name: …" with command or url under it (see config.yaml)`}
	}
	out := make([]MCPServer, 0, len(n.Content))
	for i, item := range n.Content {
		key := fmt.Sprintf("mcp[%d]", i)
		if item.Kind != yaml.MappingNode {
			return nil, &Error{Key: key, Source: file, Msg: `is not a server; write each one as an item, "- name: …" with command or url under it (see config.yaml)`}
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			if k := item.Content[j].Value; !slices.Contains(mcpKeys, k) {
				return nil, &Error{Key: key + "." + k, Source: file, Msg: "unknown key; a server takes " + strings.Join(mcpKeys, ", ") + " (see config.yaml)"}
			}
		}
		var raw bytes.Buffer
		enc := yaml.NewEncoder(&raw)
		if err := enc.Encode(item); err != nil {
			return nil, &Error{Key: key, Source: file, Msg: err.Error()}
		}
		var s MCPServer
		dec := yaml.NewDecoder(&raw)
		dec.KnownFields(true)
		if err := dec.Decode(&s); err != nil {
			return nil, &Error{Key: key, Source: file, Msg: yamlShape(err)}
		}
		out = append(out, s)
	}
	return out, nil
}

// yamlShape turns a yaml type error into what to write.
func yamlShape(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "into []string"):
		return "args, tools and each task of tasks are lists: write [a, b] — " + msg
	case strings.Contains(msg, "into map"):
		return "env, headers and tasks are maps: write {KEY: value} — " + msg
	}
	return msg
}

// normalizeMCP validates the mcp list: a unique name each, a command or a
// URL (not both), the Hugging Face preset, keys read from their
// variables, ${VAR} in env expanded from Chorus's environment.
func (c *Config) normalizeMCP() error {
	names := map[string]int{}
	for i := range c.MCP {
		s := &c.MCP[i]
		key := fmt.Sprintf("mcp[%d]", i)
		bad := func(sub, format string, args ...any) error {
			return &Error{Key: key + sub, Source: c.File, Msg: fmt.Sprintf(format, args...)}
		}
		s.Name = strings.TrimSpace(s.Name)
		s.Command = strings.TrimSpace(s.Command)
		s.URL = strings.TrimSpace(s.URL)
		if s.Name == "huggingface" && s.URL == "" && s.Command == "" {
			s.URL = HuggingFaceMCP
		}
		switch {
		case s.Name == "":
			return bad(".name", "is empty; name the server (its tools become <name>.<tool>)")
		case !mcpName.MatchString(s.Name):
			return bad(".name", "%q may hold only letters, digits, _ and - (its tools are <name>.<tool>)", s.Name)
		}
		if j, dup := names[strings.ToLower(s.Name)]; dup {
			return bad(".name", "%q is also mcp[%d]'s name; give each server its own", s.Name, j)
		}
		names[strings.ToLower(s.Name)] = i
		switch {
		case s.Command == "" && s.URL == "":
			return bad("", "has neither command (a program to start) nor url (a server to reach)")
		case s.Command != "" && s.URL != "":
			return bad("", "has both command and url; a server is one or the other")
		case s.Command != "":
			if len(s.Headers) > 0 || s.Key != "" || s.KeyEnv != "" || s.Transport != "" {
				return bad("", "is a program Chorus starts (command): headers, key, key_env and transport are for a url")
			}
			s.EnvFrom = maps.Clone(s.Env)
			for k, v := range s.Env {
				if !envName.MatchString(k) {
					return bad(".env", "%q is not a variable name", k)
				}
				s.Env[k] = expandEnv(v)
			}
		default:
			if len(s.Env) > 0 || len(s.Args) > 0 {
				return bad("", "is reached by url: env and args are for a program Chorus starts (command)")
			}
			u, err := url.Parse(s.URL)
			if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				return bad(".url", "%q is not an http(s) URL", s.URL)
			}
			switch s.Transport = strings.ToLower(strings.TrimSpace(s.Transport)); s.Transport {
			case "", "streamable", "sse":
			case "http", "streamable-http", "streamablehttp":
				s.Transport = "streamable"
			default:
				return bad(".transport", "%q is not a transport — use streamable or sse (or leave it out: streamable, then sse)", s.Transport)
			}
			if err := c.mcpKey(s, key); err != nil {
				return err
			}
		}
		for task, tools := range s.Tasks {
			if len(tools) == 0 {
				return bad(".tasks."+task, "names no tool; list the tools of %s that can do %s", s.Name, task)
			}
		}
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// expandEnv replaces ${NAME} (and $NAME) by the variable of Chorus's own
// environment: the one way a secret reaches a stdio server.
func expandEnv(v string) string { return os.Expand(v, os.Getenv) }

// mcpKey reads an HTTP server's key: key, key_env, CHORUS_MCP_<NAME>_KEY,
// or for Hugging Face's own server the Hugging Face token.
func (c *Config) mcpKey(s *MCPServer, key string) error {
	hasAuth := false
	for h := range s.Headers {
		if strings.EqualFold(h, "Authorization") {
			hasAuth = true
		}
	}
	switch {
	case s.KeyEnv != "" && s.Key != "":
		return &Error{Key: key + ".key_env", Source: c.File, Msg: "set key or key_env, not both"}
	case s.KeyEnv != "":
		s.Key, s.KeyFrom = strings.TrimSpace(os.Getenv(s.KeyEnv)), s.KeyEnv
	case s.Key != "":
		s.KeyFrom = key + ".key"
	case hasAuth:
	default:
		v := MCPKeyVar(s.Name)
		if k := strings.TrimSpace(os.Getenv(v)); k != "" {
			s.Key, s.KeyFrom = k, v
		} else if host := hostName(s.URL); host == "huggingface.co" || host == "hf.co" {
			// Hugging Face's MCP server takes the Hugging Face token.
			s.Key = c.HuggingFace.Token
			s.KeyFrom = "HF_TOKEN (or huggingface.token)"
		}
	}
	return nil
}

// MCPKeyVar is the variable an MCP server's key is read from when the
// configuration names none: CHORUS_MCP_<NAME>_KEY.
func MCPKeyVar(name string) string {
	return "CHORUS_MCP_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)) + "_KEY"
}

func hostName(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.ToLower(p.Hostname())
}

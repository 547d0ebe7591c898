// Package config loads Chorus's configuration: the embedded defaults
// (config.yaml at the repository root), a user file, CHORUS_* environment
// variables, and the OLLAMA_HOST / HF_TOKEN conventions. Invalid values fail
// at start with a message naming the key.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/viper"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// SetMode sets the inference mode (from the file, the environment or
// --mode), validated once here.
func (c *Config) SetMode(s string) error {
	m, err := endpoints.ParseMode(s)
	if err != nil {
		return fmt.Errorf("unknown value %q (want local, huggingface or hybrid)", s)
	}
	c.InferenceMode = m
	return nil
}

// WarmController reports whether the controller's prompt head is
// prefilled ahead of the first request (controller.warm). Under auto it
// is for Ollama and for an OpenAI-compatible server that takes no key:
// the warm-up is a call of the whole head (~1,400 input tokens) at every
// chat's start and /model, which a hosted API with a key bills, while a
// team's own server only gains from it.
func (c *Config) WarmController() bool {
	if w := c.Controller.Warm; w == "on" || w == "off" {
		return w == "on"
	}
	return c.Controller.Kind != "openai" || c.Controller.Key == ""
}

// EarlyAnswer reports whether the answer may start while the last tasks
// still produce their files (response.early, on by default).
func (c *Config) EarlyAnswer() bool { return c.Response.Early != "off" }

// maxRevise bounds planner.revise: each revision is a controller call and
// a round of tasks before the answer.
const maxRevise = 3

// Config is the validated configuration.
type Config struct {
	Controller struct {
		Model string `yaml:"model"`
		// Kind is the controller server's kind: a backend registered in
		// package controller (controller.Kinds), checked when it is built.
		Kind string `yaml:"kind"`
		Host string `yaml:"host"`
		// Key is the bearer token of an OpenAI-compatible server; KeyEnv
		// names a variable holding it instead (normalize reads it into
		// Key and leaves KeyEnv to say where it came from).
		Key    string `yaml:"key"`
		KeyEnv string `yaml:"key_env"`
		// Capabilities are what the model can do when its server cannot
		// say (an OpenAI-compatible server): [vision].
		Capabilities []string `yaml:"capabilities"`
		// MaxConcurrent bounds the calls in flight on the server (its
		// slots); the rest wait their turn, fairly across chats.
		MaxConcurrent int     `yaml:"max_concurrent"`
		Temperature   float64 `yaml:"temperature"`
		NumCtx        int     `yaml:"num_ctx"`
		PlanTokens    int     `yaml:"plan_tokens"`
		AnswerTokens  int     `yaml:"answer_tokens"`
		// PromptTokens bounds every controller prompt (0: three quarters
		// of num_ctx); controller.Options.PromptTokens.
		PromptTokens int           `yaml:"prompt_tokens"`
		Timeout      time.Duration `yaml:"timeout"`
		// Warm is when the prompt head is prefilled ahead of the first
		// request: auto, on or off (WarmController).
		Warm string `yaml:"warm"`
	} `yaml:"controller"`
	// InferenceMode is which endpoints may run experts, validated by
	// SetMode.
	InferenceMode      endpoints.Mode `yaml:"inference_mode"`
	NumCandidateModels int            `yaml:"num_candidate_models"`
	MaxParallel        int            `yaml:"max_parallel"`
	TaskTimeout        time.Duration  `yaml:"task_timeout"`
	OutputDir          string         `yaml:"output_dir"`
	ControllerTasks    bool           `yaml:"controller_tasks"`
	// SpillQuota bounds the bytes of results one turn writes to files
	// (pipeline.Options.SpillQuota).
	SpillQuota Size `yaml:"spill_quota"`
	// Selection is when the controller chooses a task's model: auto,
	// controller or ranked (pipeline.Selection).
	Selection string `yaml:"selection"`
	Planner   struct {
		// Revise is how many times a turn may revise its plan after
		// tasks failed for good (pipeline.Options.Revise); 0 never.
		Revise int `yaml:"revise"`
	} `yaml:"planner"`
	HuggingFace struct {
		BaseURL    string        `yaml:"base_url"`
		HubURL     string        `yaml:"hub_url"`
		Token      string        `yaml:"token"`
		MaxWait    time.Duration `yaml:"max_wait"`
		MaxRetries int           `yaml:"max_retries"`
		// Providers are the Inference Providers that may run a model, in
		// the order they are tried; "auto" is every provider serving it,
		// in the user's order from their Hub settings.
		Providers []string `yaml:"providers"`
	} `yaml:"huggingface"`
	Local struct {
		URL      string `yaml:"url"`
		Protocol string `yaml:"protocol"`
		// PublicDir is models_server's public directory on this machine,
		// where it writes the files it answers as /images/… paths.
		PublicDir string `yaml:"public_dir"`
	} `yaml:"local"`
	// OpenAI lists OpenAI-compatible servers (LocalAI, vLLM, llama.cpp's
	// server, speaches, Kokoro-FastAPI), each with the tasks and models it
	// serves.
	OpenAI []OpenAIServer `yaml:"openai"`
	// MCP lists MCP servers whose tools become experts (servers.go), in
	// the file's own case (decode.go: env: and headers: hold names).
	MCP []MCPServer `yaml:"mcp"`
	// Retrieval configures the retrieval skill's sources: web APIs the
	// user chose, trusted as configuration (plans supply only queries).
	Retrieval struct {
		WikipediaURL string `yaml:"wikipedia_url"`
		SearxNGURL   string `yaml:"searxng_url"`
		Results      int    `yaml:"results"`
		Language     string `yaml:"language"`
	} `yaml:"retrieval"`
	Ollama struct {
		Experts bool `yaml:"experts"`
	} `yaml:"ollama"`
	Command struct {
		Enabled bool `yaml:"enabled"`
		// Programs declares programs on this machine as experts, besides
		// the command kind's presets (skills.Program), in the file's own
		// case (decode.go: env: and bad_input: hold names).
		Programs []skills.Program `yaml:"programs"`
	} `yaml:"command"`
	Constraints struct {
		Licenses  []string `yaml:"licenses"`
		MaxSize   Size     `yaml:"max_size"`
		LocalOnly bool     `yaml:"local_only"`
		Prefer    string   `yaml:"prefer"`
		Benchmark string   `yaml:"benchmark"`
	} `yaml:"constraints"`
	SkillsDir string `yaml:"skills_dir"`
	Serve     struct {
		// AuthorizedKeys is the file of public keys allowed to connect.
		AuthorizedKeys string `yaml:"authorized_keys"`
		// HTTPToken is the bearer token `chorus mcp serve --http` wants;
		// HTTPTokenEnv names a variable holding it instead (normalize
		// reads it into HTTPToken and leaves HTTPTokenEnv to say where).
		HTTPToken    string        `yaml:"http_token"`
		HTTPTokenEnv string        `yaml:"http_token_env"`
		MaxSessions  int           `yaml:"max_sessions"`
		IdleTimeout  time.Duration `yaml:"idle_timeout"`
		// HandshakeTimeout is how long a connection has to log in;
		// MaxUnauthenticated(PerSource) bound the connections waiting to.
		HandshakeTimeout            time.Duration `yaml:"handshake_timeout"`
		MaxUnauthenticated          int           `yaml:"max_unauthenticated"`
		MaxUnauthenticatedPerSource int           `yaml:"max_unauthenticated_per_source"`
		// KeepAlive is how often a chat's client is asked for a sign of
		// life; none within another interval ends the chat. 0: never.
		KeepAlive time.Duration `yaml:"keepalive"`
		// AllowPull lets ssh users pull models onto the controller server.
		AllowPull bool `yaml:"allow_pull"`
		// AllowTools are the MCP tools ssh users' turns may run though
		// they may change things (server.tool, server.*, as --allow-tool):
		// the operator decides, never the remote user.
		AllowTools []string `yaml:"allow_tools"`
		// Metrics is the address of the operator's listener (/metrics,
		// /healthz, /readyz); empty serves none. DrainTimeout is how long a
		// restart lets the turns in flight finish (serve.go).
		Metrics      string        `yaml:"metrics"`
		DrainTimeout time.Duration `yaml:"drain_timeout"`
		// SpillQuota bounds the spilled results one ssh user's outputs
		// folder may hold (pipeline.Turn.SpillDirQuota).
		SpillQuota Size `yaml:"spill_quota"`
		// The bounds of chorus mcp serve (mcpserve.Options): the bytes one
		// client session's folder may hold, and the HTTP calls with a body
		// over MCPBigBody in flight at once, the others waiting MCPBigWait.
		MCPQuota    Size          `yaml:"mcp_quota"`
		MCPBigCalls int           `yaml:"mcp_big_calls"`
		MCPBigBody  Size          `yaml:"mcp_big_body"`
		MCPBigWait  time.Duration `yaml:"mcp_big_wait"`
	} `yaml:"serve"`
	Response struct {
		// Early starts the answer while the last tasks still run when
		// each produces one file at a path fixed in advance and the
		// answer needs only that path: on or off (EarlyAnswer).
		Early string `yaml:"early"`
		// Roles are saved instructions for the answer, by name (lower
		// case): chorus run --role NAME gives one as --system TEXT would
		// (pipeline.Turn.System).
		Roles map[string]string `yaml:"roles"`
	} `yaml:"response"`
	UI struct {
		Review bool                `yaml:"review"`
		Debug  bool                `yaml:"debug"`
		Keys   map[string][]string `yaml:"keys"`
	} `yaml:"ui"`

	// File is the user config file that was read, if any.
	File string `yaml:"-"`
	// Env is the environment the configuration was read from (Load's
	// env): where secrets named by variable, the XDG directories and HOME
	// are read.
	Env Env `yaml:"-" json:"-"`
	// TokenSource says where the Hugging Face token came from (never the
	// token itself), for status displays.
	TokenSource string `yaml:"-"`
	// from is the variable that set each key the environment set.
	from map[string]string
}

// Size is a size as the file writes it ("512MB", "2GB"; a parameter
// count such as 7B where a model's size is bounded), which `chorus config`
// shows as written.
type Size string

// Limit is s read, once Load has checked it (skills.ParseLimit); zero when
// s is empty.
func (s Size) Limit() skills.Limit {
	l, _ := skills.ParseLimit(string(s))
	return l
}

// Error is a configuration problem tied to one key.
type Error struct {
	Key    string
	Source string
	Msg    string
}

func (e *Error) Error() string {
	if e.Source == "" {
		return fmt.Sprintf("config: %s: %s", e.Key, e.Msg)
	}
	return fmt.Sprintf("config: %s (%s): %s", e.Key, e.Source, e.Msg)
}

// minPromptTokens is the smallest prompt budget a turn can work in.
const minPromptTokens = 2048

// envAliases are conventional variables honoured besides CHORUS_*, the
// last one set winning; the CHORUS_ form wins over them.
var envAliases = map[string][]string{
	"controller.host":   {"OLLAMA_HOST"},
	"huggingface.token": {"HUGGING_FACE_HUB_TOKEN", "HF_TOKEN"},
}

// Load builds the configuration. defaults is the embedded config.yaml; file
// is the --config flag (empty: the XDG location, which may be absent); env
// is the environment (EnvOf(os.Environ()) in the process, a test's own
// variables in a test); reads are variables the caller reads itself
// (--token-env's), which the check of the CHORUS_ variables then accepts
// (env.go).
//
// The layers are viper's, in its order: the defaults, the file over them,
// the variables over both (the command line's flags come last, cli's).
// Their keys checked against the Config's, one decoding of all of them
// makes it (decode.go), so a typo or a value of the wrong kind at any depth
// stops the start naming its key.
func Load(defaults []byte, file string, env Env, reads ...string) (*Config, error) {
	def, err := parseYAML(defaults, "")
	if err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	v := viper.New()
	for k, val := range def {
		v.SetDefault(k, val)
	}
	known := v.AllKeys()
	explicit := file != ""
	if !explicit {
		file = filepath.Join(env.ConfigDir(), "config.yaml")
	}
	switch data, err := os.ReadFile(file); {
	case err == nil:
		m, err := parseYAML(data, file)
		if err != nil {
			return nil, fmt.Errorf("config: %s: %w", file, err)
		}
		_ = v.MergeConfigMap(m) // it never fails
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		file = ""
	default:
		return nil, fmt.Errorf("config: cannot read %s: %w", file, err)
	}
	if env == nil {
		env = Env{} // the caller may add to it
	}
	c := Config{File: file, Env: env, from: map[string]string{}}
	bound := c.setEnv(v, known)
	if err := unknownKey(v.AllKeys(), file); err != nil {
		return nil, err
	}
	if err := v.Unmarshal(&c, decoding); err != nil {
		return nil, c.decodeError(err)
	}
	c.TokenSource = c.source("huggingface.token")
	if c.HuggingFace.Token == "" {
		c.HuggingFace.Token, c.TokenSource = env.cachedHFToken()
		c.from["huggingface.token"] = c.TokenSource
	}
	if err := cmp.Or(c.normalize(), c.checkEnv(bound, reads)); err != nil {
		return nil, err
	}
	return &c, nil
}

// setEnv sets every key of known its CHORUS_<KEY> variable holds — or,
// when that is empty, a conventional variable (envAliases) — over the
// file: viper's layer above it. It returns the CHORUS_<KEY> names.
func (c *Config) setEnv(v *viper.Viper, known []string) []string {
	bound := make([]string, 0, len(known))
	kind := strings.ToLower(strings.TrimSpace(cmp.Or(c.Env["CHORUS_CONTROLLER_KIND"], v.GetString("controller.kind"))))
	for _, k := range known {
		bound = append(bound, envVar(k))
		names := append(slices.Clone(envAliases[k]), envVar(k)) // the last one set wins
		if k == "controller.host" && kind != "" && kind != "ollama" {
			// OLLAMA_HOST is where Ollama listens: the controller's host
			// only when the controller is an Ollama.
			names = names[len(names)-1:]
		}
		for _, name := range names {
			if s := c.Env[name]; s != "" {
				v.Set(k, s)
				c.from[k] = name
			}
		}
	}
	return bound
}

// Package config loads Chorus's configuration: the embedded defaults
// (config.yaml at the repository root), a user file, CHORUS_* environment
// variables, and the OLLAMA_HOST / HF_TOKEN conventions. Invalid values fail
// at start with a message naming the key.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// SetMode sets the inference mode (from the file, the environment or
// --mode), validated once here.
func (c *Config) SetMode(s string) error {
	m, err := endpoints.ParseMode(s)
	if err != nil {
		return fmt.Errorf("unknown value %q (want local, huggingface or hybrid)", s)
	}
	c.InferenceMode, c.Mode = s, m
	return nil
}

// maxRevise bounds planner.revise: each revision is a controller call and
// a round of tasks before the answer.
const maxRevise = 3

// Config is the validated configuration.
type Config struct {
	Controller struct {
		Model string `mapstructure:"model" yaml:"model"`
		// Kind is the controller server's kind: a backend registered in
		// package controller (controller.Kinds), checked when it is built.
		Kind string `mapstructure:"kind" yaml:"kind"`
		Host string `mapstructure:"host" yaml:"host"`
		// Key is the bearer token of an OpenAI-compatible server; KeyEnv
		// names a variable holding it instead (normalize reads it into
		// Key and leaves KeyEnv to say where it came from).
		Key    string `mapstructure:"key" yaml:"key"`
		KeyEnv string `mapstructure:"key_env" yaml:"key_env"`
		// Capabilities are what the model can do when its server cannot
		// say (an OpenAI-compatible server): [vision].
		Capabilities []string `mapstructure:"capabilities" yaml:"capabilities"`
		// MaxConcurrent bounds the calls in flight on the server (its
		// slots); the rest wait their turn, fairly across chats.
		MaxConcurrent int     `mapstructure:"max_concurrent" yaml:"max_concurrent"`
		Temperature   float64 `mapstructure:"temperature" yaml:"temperature"`
		NumCtx        int     `mapstructure:"num_ctx" yaml:"num_ctx"`
		PlanTokens    int     `mapstructure:"plan_tokens" yaml:"plan_tokens"`
		AnswerTokens  int     `mapstructure:"answer_tokens" yaml:"answer_tokens"`
		// PromptTokens bounds every controller prompt (0: three quarters
		// of num_ctx); controller.Options.PromptTokens.
		PromptTokens int           `mapstructure:"prompt_tokens" yaml:"prompt_tokens"`
		Timeout      time.Duration `mapstructure:"timeout" yaml:"timeout"`
		// Warm is when the prompt head is prefilled ahead of the first
		// request: auto, on or off (WarmController).
		Warm string `mapstructure:"warm" yaml:"warm"`
	} `mapstructure:"controller" yaml:"controller"`
	InferenceMode string `mapstructure:"inference_mode" yaml:"inference_mode"`
	// Mode is InferenceMode validated: what the rest of Chorus reads.
	Mode               endpoints.Mode `mapstructure:"-" yaml:"-"`
	NumCandidateModels int            `mapstructure:"num_candidate_models" yaml:"num_candidate_models"`
	MaxParallel        int            `mapstructure:"max_parallel" yaml:"max_parallel"`
	TaskTimeout        time.Duration  `mapstructure:"task_timeout" yaml:"task_timeout"`
	OutputDir          string         `mapstructure:"output_dir" yaml:"output_dir"`
	ControllerTasks    bool           `mapstructure:"controller_tasks" yaml:"controller_tasks"`
	// SpillQuota bounds the bytes of results one turn writes to files
	// (pipeline.Options.SpillQuota); SpillQuotaBytes is it parsed.
	SpillQuota      string `mapstructure:"spill_quota" yaml:"spill_quota"`
	SpillQuotaBytes int64  `mapstructure:"-" yaml:"-"`
	// Selection is when the controller chooses a task's model: auto,
	// controller or ranked (pipeline.Selection).
	Selection string `mapstructure:"selection" yaml:"selection"`
	Planner   struct {
		// Revise is how many times a turn may revise its plan after
		// tasks failed for good (pipeline.Options.Revise); 0 never.
		Revise int `mapstructure:"revise" yaml:"revise"`
	} `mapstructure:"planner" yaml:"planner"`
	HuggingFace struct {
		BaseURL    string        `mapstructure:"base_url" yaml:"base_url"`
		HubURL     string        `mapstructure:"hub_url" yaml:"hub_url"`
		Token      string        `mapstructure:"token" yaml:"token"`
		MaxWait    time.Duration `mapstructure:"max_wait" yaml:"max_wait"`
		MaxRetries int           `mapstructure:"max_retries" yaml:"max_retries"`
		// Providers are the Inference Providers that may run a model, in
		// the order they are tried; "auto" is every provider serving it,
		// in the user's order from their Hub settings.
		Providers []string `mapstructure:"providers" yaml:"providers"`
	} `mapstructure:"huggingface" yaml:"huggingface"`
	Local struct {
		URL      string `mapstructure:"url" yaml:"url"`
		Protocol string `mapstructure:"protocol" yaml:"protocol"`
		// PublicDir is models_server's public directory on this machine,
		// where it writes the files it answers as /images/… paths.
		PublicDir string `mapstructure:"public_dir" yaml:"public_dir"`
	} `mapstructure:"local" yaml:"local"`
	// OpenAI lists OpenAI-compatible servers (LocalAI, vLLM, llama.cpp's
	// server, speaches, Kokoro-FastAPI), each with the tasks and models it
	// serves.
	OpenAI []OpenAIServer `mapstructure:"openai" yaml:"openai"`
	// MCP lists MCP servers whose tools become experts (config/mcp.go).
	// Read from the file itself, not through viper, which would lower the
	// case of env: and headers: names.
	MCP []MCPServer `mapstructure:"mcp" yaml:"mcp"`
	// Retrieval configures the retrieval skill's sources: web APIs the
	// user chose, trusted as configuration (plans supply only queries).
	Retrieval struct {
		WikipediaURL string `mapstructure:"wikipedia_url" yaml:"wikipedia_url"`
		SearxNGURL   string `mapstructure:"searxng_url" yaml:"searxng_url"`
		Results      int    `mapstructure:"results" yaml:"results"`
		Language     string `mapstructure:"language" yaml:"language"`
	} `mapstructure:"retrieval" yaml:"retrieval"`
	Ollama struct {
		Experts bool `mapstructure:"experts" yaml:"experts"`
	} `mapstructure:"ollama" yaml:"ollama"`
	Command struct {
		Enabled bool `mapstructure:"enabled" yaml:"enabled"`
		// Programs declares programs on this machine as experts, besides
		// the command kind's presets (config/programs.go). Read from the
		// file itself, not through viper, which would lower the case of
		// env: names.
		Programs []skills.Program `mapstructure:"programs" yaml:"programs"`
	} `mapstructure:"command" yaml:"command"`
	Constraints struct {
		Licenses []string `mapstructure:"licenses" yaml:"licenses"`
		MaxSize  string   `mapstructure:"max_size" yaml:"max_size"`
		// Limit is MaxSize parsed: what the rest of Chorus reads.
		Limit     skills.Limit `mapstructure:"-" yaml:"-"`
		LocalOnly bool         `mapstructure:"local_only" yaml:"local_only"`
		Prefer    string       `mapstructure:"prefer" yaml:"prefer"`
		Benchmark string       `mapstructure:"benchmark" yaml:"benchmark"`
	} `mapstructure:"constraints" yaml:"constraints"`
	SkillsDir string `mapstructure:"skills_dir" yaml:"skills_dir"`
	Serve     struct {
		// AuthorizedKeys is the file of public keys allowed to connect.
		AuthorizedKeys string `mapstructure:"authorized_keys" yaml:"authorized_keys"`
		// HTTPToken is the bearer token `chorus mcp serve --http` wants;
		// HTTPTokenEnv names a variable holding it instead (normalize
		// reads it into HTTPToken and leaves HTTPTokenEnv to say where).
		HTTPToken    string        `mapstructure:"http_token" yaml:"http_token"`
		HTTPTokenEnv string        `mapstructure:"http_token_env" yaml:"http_token_env"`
		MaxSessions  int           `mapstructure:"max_sessions" yaml:"max_sessions"`
		IdleTimeout  time.Duration `mapstructure:"idle_timeout" yaml:"idle_timeout"`
		// HandshakeTimeout is how long a connection has to log in;
		// MaxUnauthenticated(PerSource) bound the connections waiting to.
		HandshakeTimeout            time.Duration `mapstructure:"handshake_timeout" yaml:"handshake_timeout"`
		MaxUnauthenticated          int           `mapstructure:"max_unauthenticated" yaml:"max_unauthenticated"`
		MaxUnauthenticatedPerSource int           `mapstructure:"max_unauthenticated_per_source" yaml:"max_unauthenticated_per_source"`
		// KeepAlive is how often a chat's client is asked for a sign of
		// life; none within another interval ends the chat. 0: never.
		KeepAlive time.Duration `mapstructure:"keepalive" yaml:"keepalive"`
		// AllowPull lets ssh users pull models onto the controller server.
		AllowPull bool `mapstructure:"allow_pull" yaml:"allow_pull"`
		// AllowTools are the MCP tools ssh users' turns may run though
		// they may change things (server.tool, server.*, as --allow-tool):
		// the operator decides, never the remote user.
		AllowTools []string `mapstructure:"allow_tools" yaml:"allow_tools"`
		// Metrics is the address of the operator's listener (/metrics,
		// /healthz, /readyz); empty serves none. DrainTimeout is how long a
		// restart lets the turns in flight finish (serve.go).
		Metrics      string        `mapstructure:"metrics" yaml:"metrics"`
		DrainTimeout time.Duration `mapstructure:"drain_timeout" yaml:"drain_timeout"`
		// SpillQuota bounds the spilled results one ssh user's outputs
		// folder may hold (pipeline.Turn.SpillDirQuota); SpillQuotaBytes is
		// it parsed.
		SpillQuota      string `mapstructure:"spill_quota" yaml:"spill_quota"`
		SpillQuotaBytes int64  `mapstructure:"-" yaml:"-"`
		// The bounds of chorus mcp serve (mcpserve.Options): the bytes one
		// client session's folder may hold, and the HTTP calls with a body
		// over MCPBigBody in flight at once, the others waiting MCPBigWait.
		MCPQuota        string        `mapstructure:"mcp_quota" yaml:"mcp_quota"`
		MCPQuotaBytes   int64         `mapstructure:"-" yaml:"-"`
		MCPBigCalls     int           `mapstructure:"mcp_big_calls" yaml:"mcp_big_calls"`
		MCPBigBody      string        `mapstructure:"mcp_big_body" yaml:"mcp_big_body"`
		MCPBigBodyBytes int64         `mapstructure:"-" yaml:"-"`
		MCPBigWait      time.Duration `mapstructure:"mcp_big_wait" yaml:"mcp_big_wait"`
	} `mapstructure:"serve" yaml:"serve"`
	Response struct {
		// Early starts the answer while the last tasks still run when
		// each produces one file at a path fixed in advance and the
		// answer needs only that path: on or off (EarlyAnswer).
		Early string `mapstructure:"early" yaml:"early"`
		// Roles are saved instructions for the answer, by name (lower
		// case): chorus run --role NAME gives one as --system TEXT would
		// (pipeline.Turn.System).
		Roles map[string]string `mapstructure:"roles" yaml:"roles"`
	} `mapstructure:"response" yaml:"response"`
	UI struct {
		Review bool                `mapstructure:"review" yaml:"review"`
		Debug  bool                `mapstructure:"debug" yaml:"debug"`
		Keys   map[string][]string `mapstructure:"keys" yaml:"keys"`
	} `mapstructure:"ui" yaml:"ui"`

	// File is the user config file that was read, if any.
	File string `mapstructure:"-" yaml:"-"`
	// TokenSource says where the Hugging Face token came from (never the
	// token itself), for status displays.
	TokenSource string `mapstructure:"-" yaml:"-"`
}

// OpenAIServer is one entry of the openai list.
type OpenAIServer struct {
	// Name is how messages and the report name the server; empty means
	// openai[N].
	Name string `mapstructure:"name" yaml:"name"`
	// URL is the server's base URL, with or without /v1.
	URL string `mapstructure:"url" yaml:"url"`
	// Key is the bearer token; KeyEnv names a variable holding it instead,
	// read at start, so the file need not hold a secret. With neither,
	// CHORUS_OPENAI_<NAME>_KEY is read (OpenAIKeyVar).
	Key    string `mapstructure:"key" yaml:"key"`
	KeyEnv string `mapstructure:"key_env" yaml:"key_env"`
	// Voice is the voice text-to-speech asks for (default alloy).
	Voice string `mapstructure:"voice" yaml:"voice"`
	// Tasks are the tasks the server serves; empty means the tasks Models
	// names.
	Tasks []string `mapstructure:"tasks" yaml:"tasks"`
	// Models lists the server's model ids by task.
	Models map[string][]string `mapstructure:"models" yaml:"models"`
}

// Error is a configuration problem tied to one key.
type Error struct {
	Key    string
	Source string
	Msg    string
}

func (e *Error) Error() string {
	src := ""
	if e.Source != "" {
		src = " (" + e.Source + ")"
	}
	return fmt.Sprintf("config: %s%s: %s", e.Key, src, e.Msg)
}

// minPromptTokens is the smallest prompt budget a turn can work in.
const minPromptTokens = 2048

// envAliases are conventional variables honoured besides CHORUS_*; the
// CHORUS_ form wins when both are set.
var envAliases = map[string][]string{
	"controller.host":   {"OLLAMA_HOST"},
	"huggingface.token": {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"},
}

// Load builds the configuration. defaults is the embedded config.yaml; file
// is the --config flag (empty: the XDG location, which may be absent);
// reads are variables the caller reads itself (--token-env's), which the
// check of the CHORUS_ variables then accepts (env.go).
func Load(defaults []byte, file string, reads ...string) (*Config, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(defaults)); err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	known := v.AllKeys()

	explicit := file != ""
	if !explicit {
		file = filepath.Join(ConfigDir(), "config.yaml")
	}
	data, err := os.ReadFile(file)
	var servers []MCPServer
	var programs []skills.Program
	switch {
	case err == nil:
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("config: %s: %w", file, err)
		}
		if err := checkFile(data, file); err != nil {
			return nil, err
		}
		if servers, err = readMCP(data, file); err != nil {
			return nil, err
		}
		if programs, err = readPrograms(data, file); err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		file = ""
	default:
		return nil, fmt.Errorf("config: cannot read %s: %w", file, err)
	}

	v.SetEnvPrefix("CHORUS")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	bound := make([]string, 0, len(known))
	for _, k := range known {
		bound = append(bound, envVar(k))
		if err := v.BindEnv(k, envVar(k)); err != nil {
			return nil, err
		}
	}
	for k, aliases := range envAliases {
		// OLLAMA_HOST is where Ollama listens: the controller's host only
		// when the controller is an Ollama.
		if k == "controller.host" && !slices.Contains([]string{"", "ollama"}, strings.ToLower(strings.TrimSpace(v.GetString("controller.kind")))) {
			continue
		}
		if err := v.BindEnv(append([]string{k}, aliases...)...); err != nil {
			return nil, err
		}
	}

	if err := checkDurations(v.Get, file, true); err != nil {
		return nil, err
	}
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return nil, decodeError(err, file, true)
	}
	c.File = file
	c.MCP = servers
	if data != nil {
		c.Command.Programs = programs
	}
	c.TokenSource = tokenSource(file)
	if c.HuggingFace.Token == "" {
		c.HuggingFace.Token, c.TokenSource = cachedHFToken()
	}
	if err := c.normalize(); err != nil {
		return nil, err
	}
	if err := c.checkEnv(os.Environ(), bound, reads); err != nil {
		return nil, err
	}
	return &c, nil
}

func tokenSource(file string) string {
	for _, e := range []string{"CHORUS_HUGGINGFACE_TOKEN", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if os.Getenv(e) != "" {
			return e
		}
	}
	if file != "" {
		return file
	}
	return ""
}

// cachedHFToken reads the token `huggingface-cli login` stores.
func cachedHFToken() (token, source string) {
	home := os.Getenv("HF_HOME")
	if home == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", ""
		}
		home = filepath.Join(base, "huggingface")
	}
	p := filepath.Join(home, "token")
	b, err := os.ReadFile(p)
	if err != nil {
		return "", ""
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", ""
	}
	return t, p
}

// NormalizeControllerHost is NormalizeHost for the controller's kind of
// server: an OpenAI-compatible server's URL keeps the scheme's own default
// port and ends in /v1 (added when the URL has no path).
func NormalizeControllerHost(kind, h string) (string, error) {
	if kind != "openai" {
		return NormalizeHost(h)
	}
	h = strings.TrimSpace(h)
	if h == "" {
		return "", fmt.Errorf("is empty; give the server's URL, such as http://127.0.0.1:8000/v1 for vLLM")
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not an http(s) URL", h)
	}
	if hostname := u.Hostname(); hostname == "0.0.0.0" || hostname == "::" {
		u.Host = joinHostPort("127.0.0.1", u.Port())
		if u.Port() == "" {
			u.Host = "127.0.0.1"
		}
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1"
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimRight(u.String(), "/"), nil
}

// NormalizeHost turns an Ollama host as people write it ("127.0.0.1:11434",
// "0.0.0.0", "https://ollama.example") into a base URL.
func NormalizeHost(h string) (string, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return "", fmt.Errorf("is empty; the default is http://127.0.0.1:11434")
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not a host or http(s) URL", h)
	}
	hostname, port := u.Hostname(), u.Port()
	if hostname == "0.0.0.0" || hostname == "::" {
		hostname = "127.0.0.1"
	}
	if port == "" {
		port = "11434"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	u.Host = joinHostPort(hostname, port)
	return strings.TrimRight(u.String(), "/"), nil
}

func joinHostPort(h, p string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]:" + p
	}
	return h + ":" + p
}

func checkURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		if t := strings.TrimSpace(s); t != "" && !strings.Contains(t, "://") {
			// The usual slip is a bare host:port; say what to write.
			return "", fmt.Errorf("%q is not an http(s) URL; write http://%s (or https://)", text.RedactURL(s), text.RedactURL(t))
		}
		return "", fmt.Errorf("%q is not an http(s) URL", text.RedactURL(s))
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// validLanguage accepts a language code as Wikipedia subdomains and
// SearxNG spell them: letters, digits and hyphens, 2 to 12 of them.
func validLanguage(s string) bool {
	if len(s) < 2 || len(s) > 12 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// decodeError turns a value of the wrong type ("max_parallel: lots",
// "experts: maybe") into an Error naming the key and what to write,
// rather than the decoder's multi-line report of Go types. With env, a
// value set by CHORUS_<KEY> is named as coming from there.
func decodeError(err error, file string, env bool) error {
	var de *mapstructure.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("config: %w", err)
	}
	key := de.Name()
	var (
		pe   *mapstructure.ParseError
		ue   *mapstructure.UnconvertibleTypeError
		want reflect.Type
		got  any
	)
	switch {
	case errors.As(err, &pe):
		want, got = pe.Expected.Type(), pe.Value
	case errors.As(err, &ue):
		want, got = ue.Expected.Type(), ue.Value
	}
	var msg string
	switch {
	case want == reflect.TypeOf(time.Duration(0)) || strings.Contains(err.Error(), "time: invalid duration"):
		msg = "is not a duration; write one such as 30s, 3m or 1h"
	case want == nil && strings.Contains(err.Error(), "expected a map or struct"):
		// A value where a section belongs ("retrieval: 5").
		msg = "is a section; write its keys indented under it (see config.yaml)"
	case want == nil:
		msg = fmt.Sprintf("has a value of the wrong kind (%v)", errors.Unwrap(de))
	case reflect.TypeOf(got) != nil && reflect.TypeOf(got).Kind() == reflect.Map:
		// Keys under a key that takes one value ("model:" with "name:"
		// indented under it): the map's Go rendering would say nothing.
		msg, got = "takes one value, not keys indented under it (see config.yaml)", nil
	case want.Kind() == reflect.Bool:
		msg = "is not true or false"
	case want.Kind() >= reflect.Int && want.Kind() <= reflect.Uint64:
		msg = "is not a whole number"
	case want.Kind() == reflect.Float32 || want.Kind() == reflect.Float64:
		msg = "is not a number"
	case want.Kind() == reflect.Slice:
		msg = "is a list; write [a, b] or one item a line, each after \"- \""
	case want.Kind() == reflect.Map || want.Kind() == reflect.Struct:
		msg = "is a section; write its keys indented under it (see config.yaml)"
	default:
		msg = fmt.Sprintf("has a value of the wrong kind (want %s)", want)
	}
	if got != nil {
		msg = fmt.Sprintf("%q %s", fmt.Sprint(got), msg)
	}
	// The value may come from the file or, when env, from CHORUS_<KEY>.
	if v := "CHORUS_" + strings.ToUpper(strings.NewReplacer(".", "_", "[", "_", "]", "").Replace(key)); env && os.Getenv(v) != "" {
		file = v
	}
	return &Error{Key: key, Source: file, Msg: msg}
}

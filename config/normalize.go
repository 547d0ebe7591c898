package config

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// normalize checks every setting and puts it in the form the rest of
// Chorus reads (lower-cased kinds, absolute paths, secrets read from the
// environment), a section at a time in the order config.yaml lists them;
// the first setting that is wrong is the error, naming its key, where it
// came from and the fix (cmp.Or, as a section's rules are).
func (c *Config) normalize() error {
	return cmp.Or(c.normalizeController(), c.normalizeRun(), c.normalizeExperts(), c.normalizeOpenAI(), c.normalizeMCP(),
		c.normalizeRetrieval(), c.normalizePrograms(), c.normalizeConstraints(), c.normalizeServe())
}

// bad is the error for the setting key: its value is wrong, as the
// message says, where it came from (the variable that set it, else the
// file).
func (c *Config) bad(key, format string, args ...any) error {
	return &Error{Key: key, Source: c.source(key), Msg: fmt.Sprintf(format, args...)}
}

// check is one rule of a section: c.bad(key, …) when wrong, else nil. A
// section lists its rules in cmp.Or, which returns the first that fails.
func (c *Config) check(wrong bool, key, format string, args ...any) error {
	if !wrong {
		return nil
	}
	return c.bad(key, format, args...)
}

// secret reads the secret at key (controller.key, serve.http_token,
// openai[0].key) from the variable its _env key names, or, when neither
// is set, from the variable fallback (then named in env: where it came
// from).
func (c *Config) secret(key string, value, env *string, fallback string) error {
	switch v := strings.TrimSpace(c.Env[fallback]); {
	case *env != "" && *value != "":
		return c.bad(key+"_env", "set %s or %s_env, not both", key, key)
	case *env != "":
		*value = strings.TrimSpace(c.Env[*env])
	case *value == "" && fallback != "" && v != "":
		*value, *env = v, fallback
	}
	return nil
}

// normalizeController checks the controller's settings, and reads the
// secrets named by environment variable (controller.key_env and, like it,
// serve.http_token_env).
func (c *Config) normalizeController() error {
	ctl := &c.Controller
	if strings.TrimSpace(ctl.Model) == "" {
		return c.bad("controller.model", "is empty; name a model the controller server has, such as qwen3:8b")
	}
	ctl.Kind = strings.ToLower(strings.TrimSpace(ctl.Kind))
	var err error
	if ctl.Host, err = NormalizeHost(ctl.Kind, ctl.Host); err != nil {
		return c.bad("controller.host", "%v", err)
	}
	if err := cmp.Or(c.secret("controller.key", &ctl.Key, &ctl.KeyEnv, ""), c.secret("serve.http_token", &c.Serve.HTTPToken, &c.Serve.HTTPTokenEnv, "")); err != nil {
		return err
	}
	warm, warmOK := spelling(ctl.Warm, "auto")
	early, earlyOK := spelling(c.Response.Early, "on")
	for i, cp := range ctl.Capabilities {
		if ctl.Capabilities[i] = strings.ToLower(strings.TrimSpace(cp)); ctl.Capabilities[i] != "vision" {
			return c.bad("controller.capabilities", "%q is not a capability Chorus uses — the list takes vision (the model sees images)", ctl.Capabilities[i])
		}
	}
	p := ctl.PromptTokens
	err = cmp.Or(
		c.check(!warmOK, "controller.warm", "%q is not auto, on or off", ctl.Warm),
		c.check(!earlyOK, "response.early", "%q is not on or off", c.Response.Early),
		c.check(ctl.MaxConcurrent < 0 || ctl.MaxConcurrent > 4096, "controller.max_concurrent", "%d is out of range (0 for no bound, else the server's slots, up to 4096)", ctl.MaxConcurrent),
		c.check(ctl.Temperature < 0 || ctl.Temperature > 2, "controller.temperature", "%v is out of range (0 to 2)", ctl.Temperature),
		c.check(ctl.NumCtx < 512, "controller.num_ctx", "%d is too small (at least 512)", ctl.NumCtx),
		c.check(ctl.PlanTokens < 64, "controller.plan_tokens", "%d is too small (at least 64)", ctl.PlanTokens),
		c.check(ctl.AnswerTokens < 64, "controller.answer_tokens", "%d is too small (at least 64)", ctl.AnswerTokens),
		c.check(p != 0 && p < minPromptTokens, "controller.prompt_tokens", "%d is too small (0 for three quarters of num_ctx, else at least %d: the prompt's head alone takes up to 1,500)", p, minPromptTokens),
		c.check(p > ctl.NumCtx && (ctl.Kind == "" || ctl.Kind == "ollama"), "controller.prompt_tokens", "%d is over num_ctx (%d), so Ollama would drop the start of long prompts — raise num_ctx, or lower prompt_tokens", p, ctl.NumCtx),
		c.check(ctl.Timeout <= 0, "controller.timeout", "must be a positive duration such as 5m"),
	)
	ctl.Warm, c.Response.Early = warm, early
	return err
}

// spelling reads the spellings of an on/off setting (controller.warm,
// response.early) into on or off; unset is def, and auto is one only
// where def is. A YAML boolean (warm: true) reaches it as "1" or "0".
func spelling(s, def string) (string, bool) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "on", "true", "yes", "1":
		return "on", true
	case "off", "false", "no", "0":
		return "off", true
	case "", def:
		return def, true
	}
	return "", false
}

// normalizeRun checks how a turn runs: the inference mode, selection,
// revision, candidates, parallel tasks, their time and the results they
// may spill to files.
func (c *Config) normalizeRun() error {
	if err := c.SetMode(string(c.InferenceMode)); err != nil {
		return c.bad("inference_mode", "%v", err)
	}
	c.Selection = strings.ToLower(strings.TrimSpace(c.Selection))
	return cmp.Or(
		c.check(c.Selection != "auto" && c.Selection != "controller" && c.Selection != "ranked", "selection", "%q is not a selection mode — use auto, controller or ranked", c.Selection),
		c.check(c.Planner.Revise < 0 || c.Planner.Revise > maxRevise, "planner.revise", "%d is out of range (0 turns revision off, at most %d)", c.Planner.Revise, maxRevise),
		c.check(c.NumCandidateModels < 1 || c.NumCandidateModels > 50, "num_candidate_models", "%d is out of range (1 to 50)", c.NumCandidateModels),
		c.check(c.MaxParallel < 1 || c.MaxParallel > 256, "max_parallel", "%d is out of range (1 to 256)", c.MaxParallel),
		c.check(c.TaskTimeout <= 0, "task_timeout", "must be a positive duration such as 3m"),
		c.size("spill_quota", c.SpillQuota),
	)
}

// url checks the URL at key, putting it in its normal form. Empty, it is
// cleared when optional (empty is ""), else refused with the message
// empty. It wants the scheme (a bare host:port is the usual slip, and the
// message says what to write), and shows a refused one without its
// password.
func (c *Config) url(key string, p *string, empty string) error {
	t := strings.TrimSpace(*p)
	switch u, ok := httpURL(t, false); {
	case t == "" && empty == "":
		*p = ""
	case t == "":
		return c.bad(key, "%s", empty)
	case !ok && !strings.Contains(t, "://"):
		return c.bad(key, "%q is not an http(s) URL; write http://%s (or https://)", text.RedactURL(*p), text.RedactURL(t))
	case !ok:
		return c.bad(key, "%q is not an http(s) URL", text.RedactURL(*p))
	default:
		*p = strings.TrimRight(u.String(), "/")
	}
	return nil
}

// normalizeExperts checks the Hugging Face and local expert endpoints'
// settings.
func (c *Config) normalizeExperts() error {
	hf := &c.HuggingFace
	providers, err := endpoints.ParseProviders(hf.Providers)
	hf.Providers = providers
	c.Local.PublicDir = c.Env.expandHome(c.Local.PublicDir)
	return cmp.Or(
		c.url("huggingface.base_url", &hf.BaseURL, "is empty; the default is https://router.huggingface.co"),
		c.url("huggingface.hub_url", &hf.HubURL, "is empty; the default is https://huggingface.co"),
		c.check(hf.MaxWait < 0, "huggingface.max_wait", "must not be negative"),
		c.check(hf.MaxRetries < 0 || hf.MaxRetries > 20, "huggingface.max_retries", "%d is out of range (0 to 20)", hf.MaxRetries),
		c.check(err != nil, "huggingface.providers", "%v", err),
		c.url("local.url", &c.Local.URL, ""),
		c.check(c.Local.Protocol != "jarvis" && c.Local.Protocol != "hf", "local.protocol", "unknown value %q (want jarvis or hf)", c.Local.Protocol),
	)
}

// language is a language code as Wikipedia subdomains and SearxNG spell
// them.
var language = regexp.MustCompile(`^[A-Za-z0-9-]{2,12}$`)

// normalizeRetrieval checks the retrieval sources' addresses and what a
// search returns.
func (c *Config) normalizeRetrieval() error {
	r := &c.Retrieval
	return cmp.Or(
		c.url("retrieval.wikipedia_url", &r.WikipediaURL, ""),
		c.url("retrieval.searxng_url", &r.SearxNGURL, ""),
		c.check(r.Results < 1 || r.Results > 10, "retrieval.results", "%d is out of range (1 to 10)", r.Results),
		c.check(r.Language != "" && !language.MatchString(r.Language), "retrieval.language", "%q is not a language code (e.g. en, de, pt-br)", r.Language),
	)
}

// normalizePrograms checks each declared program's shape, naming the key
// of the first problem (command.programs[2].args). Whether its tasks and
// placeholders fit the catalog is the command kind's to say when it is
// built (it knows the skill files).
func (c *Config) normalizePrograms() error {
	for i := range c.Command.Programs {
		p := &c.Command.Programs[i]
		p.Name = strings.TrimSpace(p.Name)
		if err := p.Check(); err != nil {
			key := fmt.Sprintf("command.programs[%d]", i)
			field, msg, ok := strings.Cut(err.Error(), ": ")
			if ok && field != "" && !strings.Contains(field, " ") {
				return c.bad(key+"."+field, "%s", msg)
			}
			return c.bad(key, "%v", err)
		}
	}
	return nil
}

// normalizeConstraints reads the standing constraints: the size limit
// and the preference, with its benchmark in either spelling; and puts the
// folders and files Chorus writes or reads in their default places when
// unset, with ~ expanded.
func (c *Config) normalizeConstraints() error {
	cs := &c.Constraints
	if _, err := skills.ParseLimit(string(cs.MaxSize)); cs.MaxSize != "" && err != nil {
		return c.bad("constraints.max_size", "%v", err)
	}
	// The command line's spelling is the config file's too: prefer:
	// "best=wer:common_voice" (or "best:…") carries its benchmark inline
	// (pipeline.ParsePrefer reads every spelling).
	prefer := strings.ToLower(strings.TrimSpace(cs.Prefer))
	if rest, ok := strings.CutPrefix(prefer, "best"); ok && rest != "" && strings.ContainsRune("=: ", rune(rest[0])) {
		if strings.TrimSpace(cs.Benchmark) != "" {
			return c.bad("constraints.prefer", `names a benchmark (%q) and so does constraints.benchmark (%q): keep one`, rest[1:], cs.Benchmark)
		}
		prefer, cs.Benchmark = "best", rest[1:]
	}
	cs.Prefer = prefer
	c.OutputDir = c.Env.expandHome(cmp.Or(c.OutputDir, filepath.Join(c.Env.DataDir(), "outputs")))
	c.SkillsDir = c.Env.expandHome(cmp.Or(c.SkillsDir, filepath.Join(c.Env.ConfigDir(), "skills")))
	c.Serve.AuthorizedKeys = c.Env.expandHome(cmp.Or(c.Serve.AuthorizedKeys, filepath.Join(c.Env.ConfigDir(), "authorized_keys")))
	return cmp.Or(
		c.check(prefer != "" && prefer != "smallest" && prefer != "best", "constraints.prefer", `unknown value %q (want "", smallest, best with constraints.benchmark, or best=BENCHMARK)`, prefer),
		c.check(prefer == "best" && strings.TrimSpace(cs.Benchmark) == "", "constraints.benchmark", `is required when constraints.prefer is "best" (e.g. "common_voice wer")`),
	)
}

// normalizeServe checks chorus serve's limits on sessions, idleness and
// unauthenticated connections, what its operator sets (the metrics
// listener's address and the drain's timeout) and the disk and memory
// bounds of ssh users and chorus mcp serve.
func (c *Config) normalizeServe() error {
	s := &c.Serve
	s.Metrics = strings.TrimSpace(s.Metrics)
	_, _, err := net.SplitHostPort(s.Metrics)
	return cmp.Or(
		c.check(s.MaxSessions < 1 || s.MaxSessions > 1000, "serve.max_sessions", "%d is out of range (1 to 1000)", s.MaxSessions),
		c.check(s.IdleTimeout < 0, "serve.idle_timeout", "must not be negative (0 keeps idle connections open)"),
		c.check(s.KeepAlive < 0, "serve.keepalive", "must not be negative (0 never asks)"),
		c.check(s.HandshakeTimeout < time.Second || s.HandshakeTimeout > 10*time.Minute, "serve.handshake_timeout", "%s is out of range (1s to 10m)", s.HandshakeTimeout),
		c.check(s.MaxUnauthenticated < 1 || s.MaxUnauthenticated > 100000, "serve.max_unauthenticated", "%d is out of range (1 to 100000)", s.MaxUnauthenticated),
		c.check(s.MaxUnauthenticatedPerSource < 1 || s.MaxUnauthenticatedPerSource > s.MaxUnauthenticated, "serve.max_unauthenticated_per_source",
			"%d is out of range (1 to serve.max_unauthenticated, %d)", s.MaxUnauthenticatedPerSource, s.MaxUnauthenticated),
		c.check(s.Metrics != "" && err != nil, "serve.metrics", "%q is not HOST:PORT (e.g. 127.0.0.1:9464; empty serves no metrics)", s.Metrics),
		c.check(s.DrainTimeout < 0 || s.DrainTimeout > time.Hour, "serve.drain_timeout", "%s is out of range (0 stops at once, up to 1h)", s.DrainTimeout),
		c.size("serve.spill_quota", s.SpillQuota),
		c.size("serve.mcp_quota", s.MCPQuota),
		c.check(s.MCPBigCalls < 1 || s.MCPBigCalls > 1024, "serve.mcp_big_calls", "%d is out of range (1 to 1024)", s.MCPBigCalls),
		c.size("serve.mcp_big_body", s.MCPBigBody),
		c.check(s.MCPBigWait < time.Second || s.MCPBigWait > time.Hour, "serve.mcp_big_wait", "%s is out of range (1s to 1h)", s.MCPBigWait),
	)
}

// size checks the size at key: neither empty nor a count (a bound: there
// is no "unbounded", raise it instead).
func (c *Config) size(key string, value Size) error {
	l, err := skills.ParseLimit(string(value))
	switch {
	case strings.TrimSpace(string(value)) == "":
		return c.bad(key, "is empty; give a size such as 512MB or 2GB")
	case err != nil:
		return c.bad(key, "%v", err)
	case l.Bytes == 0:
		return c.bad(key, "%q is a count, not a size: write it with B (512MB, 2GB)", value)
	}
	return nil
}

// httpURL parses s as an http(s) URL with a host; a bare host[:port] is
// taken as http:// when bare.
func httpURL(s string, bare bool) (*url.URL, bool) {
	if bare && !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	return u, err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}

// NormalizeHost turns the host of a controller server of kind as people
// write it into a base URL. An Ollama's ("127.0.0.1:11434", "0.0.0.0",
// "https://ollama.example") gets Ollama's port when it names none; an
// OpenAI-compatible server's URL (kind openai) keeps the scheme's own
// default port and ends in /v1 (added when the URL has no path). 0.0.0.0
// and :: (where a server listens) are 127.0.0.1 (where it is reached).
func NormalizeHost(kind, h string) (string, error) {
	h = strings.TrimSpace(h)
	u, ok := httpURL(h, true)
	openai := kind == "openai"
	switch {
	case h == "" && openai:
		return "", errors.New("is empty; give the server's URL, such as http://127.0.0.1:8000/v1 for vLLM")
	case h == "":
		return "", errors.New("is empty; the default is http://127.0.0.1:11434")
	case !ok && openai:
		return "", fmt.Errorf("%q is not an http(s) URL", h)
	case !ok:
		return "", fmt.Errorf("%q is not a host or http(s) URL", h)
	}
	hostname, port := u.Hostname(), u.Port()
	if hostname == "0.0.0.0" || hostname == "::" {
		hostname = "127.0.0.1"
	}
	if port == "" && !openai {
		port = map[string]string{"http": "11434", "https": "443"}[u.Scheme]
	}
	u.Host = strings.TrimSuffix(net.JoinHostPort(hostname, port), ":")
	if openai {
		u.RawQuery, u.Fragment = "", ""
		if strings.Trim(u.Path, "/") == "" {
			u.Path = "/v1"
		}
	}
	return strings.TrimRight(u.String(), "/"), nil
}

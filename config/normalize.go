package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// normalize checks every setting and puts it in the form the rest of
// Chorus reads (lower-cased kinds, absolute paths, secrets read from the
// environment), a section at a time in the order config.yaml lists them;
// the first setting that is wrong is the error, naming its key, where it
// came from and the fix.
func (c *Config) normalize() error {
	for _, section := range []func() error{
		c.normalizeController, c.normalizeRun, c.normalizeExperts, c.normalizeOpenAI, c.normalizeMCP,
		c.normalizeRetrieval, c.normalizePrograms, c.normalizeConstraints, c.normalizePaths, c.normalizeServe, c.normalizeServeOps,
	} {
		if err := section(); err != nil {
			return err
		}
	}
	return nil
}

// bad is the error for the setting key: its value is wrong, as the
// message says, in the file the configuration came from.
func (c *Config) bad(key, format string, args ...any) error {
	return &Error{Key: key, Source: c.File, Msg: fmt.Sprintf(format, args...)}
}

// normalizeController checks the controller's settings, and reads the
// secrets named by environment variable (controller.key_env and, like it,
// serve.http_token_env).
func (c *Config) normalizeController() error {
	if strings.TrimSpace(c.Controller.Model) == "" {
		return c.bad("controller.model", "is empty; name a model the controller server has, such as qwen3:8b")
	}
	c.Controller.Kind = strings.ToLower(strings.TrimSpace(c.Controller.Kind))
	host, err := NormalizeControllerHost(c.Controller.Kind, c.Controller.Host)
	if err != nil {
		return c.bad("controller.host", "%v", err)
	}
	c.Controller.Host = host
	switch {
	case c.Controller.KeyEnv != "" && c.Controller.Key != "":
		return c.bad("controller.key_env", "set controller.key or controller.key_env, not both")
	case c.Controller.KeyEnv != "":
		c.Controller.Key = strings.TrimSpace(os.Getenv(c.Controller.KeyEnv))
	}
	switch {
	case c.Serve.HTTPTokenEnv != "" && c.Serve.HTTPToken != "":
		return c.bad("serve.http_token_env", "set serve.http_token or serve.http_token_env, not both")
	case c.Serve.HTTPTokenEnv != "":
		c.Serve.HTTPToken = strings.TrimSpace(os.Getenv(c.Serve.HTTPTokenEnv))
	}
	if err := c.normalizeWarm(); err != nil {
		return c.bad("controller.warm", "%v", err)
	}
	if err := c.normalizeEarly(); err != nil {
		return c.bad("response.early", "%v", err)
	}
	if c.Controller.MaxConcurrent < 0 || c.Controller.MaxConcurrent > 4096 {
		return c.bad("controller.max_concurrent", "%d is out of range (0 for no bound, else the server's slots, up to 4096)", c.Controller.MaxConcurrent)
	}
	for i, cp := range c.Controller.Capabilities {
		cp = strings.ToLower(strings.TrimSpace(cp))
		if cp != "vision" {
			return c.bad("controller.capabilities", "%q is not a capability Chorus uses — the list takes vision (the model sees images)", cp)
		}
		c.Controller.Capabilities[i] = cp
	}
	if c.Controller.Temperature < 0 || c.Controller.Temperature > 2 {
		return c.bad("controller.temperature", "%v is out of range (0 to 2)", c.Controller.Temperature)
	}
	if c.Controller.NumCtx < 512 {
		return c.bad("controller.num_ctx", "%d is too small (at least 512)", c.Controller.NumCtx)
	}
	if c.Controller.PlanTokens < 64 {
		return c.bad("controller.plan_tokens", "%d is too small (at least 64)", c.Controller.PlanTokens)
	}
	if c.Controller.AnswerTokens < 64 {
		return c.bad("controller.answer_tokens", "%d is too small (at least 64)", c.Controller.AnswerTokens)
	}
	switch p := c.Controller.PromptTokens; {
	case p != 0 && p < minPromptTokens:
		return c.bad("controller.prompt_tokens", "%d is too small (0 for three quarters of num_ctx, else at least %d: the prompt's head alone takes up to 1,500)", p, minPromptTokens)
	case p > c.Controller.NumCtx && (c.Controller.Kind == "" || c.Controller.Kind == "ollama"):
		return c.bad("controller.prompt_tokens", "%d is over num_ctx (%d), so Ollama would drop the start of long prompts — raise num_ctx, or lower prompt_tokens", p, c.Controller.NumCtx)
	}
	if c.Controller.Timeout <= 0 {
		return c.bad("controller.timeout", "must be a positive duration such as 5m")
	}
	return nil
}

// normalizeRun checks how a turn runs: the inference mode, selection,
// revision, candidates, parallel tasks and their time.
func (c *Config) normalizeRun() error {
	if err := c.SetMode(c.InferenceMode); err != nil {
		return c.bad("inference_mode", "%v", err)
	}
	switch c.Selection = strings.ToLower(strings.TrimSpace(c.Selection)); c.Selection {
	case "auto", "controller", "ranked":
	default:
		return c.bad("selection", "%q is not a selection mode — use auto, controller or ranked", c.Selection)
	}
	if c.Planner.Revise < 0 || c.Planner.Revise > maxRevise {
		return c.bad("planner.revise", "%d is out of range (0 turns revision off, at most %d)", c.Planner.Revise, maxRevise)
	}
	if c.NumCandidateModels < 1 || c.NumCandidateModels > 50 {
		return c.bad("num_candidate_models", "%d is out of range (1 to 50)", c.NumCandidateModels)
	}
	if c.MaxParallel < 1 || c.MaxParallel > 256 {
		return c.bad("max_parallel", "%d is out of range (1 to 256)", c.MaxParallel)
	}
	if c.TaskTimeout <= 0 {
		return c.bad("task_timeout", "must be a positive duration such as 3m")
	}
	return nil
}

// normalizeExperts checks the Hugging Face and local expert endpoints'
// settings.
func (c *Config) normalizeExperts() error {
	for key, raw := range map[string]*string{"huggingface.base_url": &c.HuggingFace.BaseURL, "huggingface.hub_url": &c.HuggingFace.HubURL} {
		u, err := checkURL(*raw)
		if err != nil {
			return c.bad(key, "%v", err)
		}
		*raw = u
	}
	if c.HuggingFace.MaxWait < 0 {
		return c.bad("huggingface.max_wait", "must not be negative")
	}
	if c.HuggingFace.MaxRetries < 0 || c.HuggingFace.MaxRetries > 20 {
		return c.bad("huggingface.max_retries", "%d is out of range (0 to 20)", c.HuggingFace.MaxRetries)
	}
	providers, err := endpoints.ParseProviders(c.HuggingFace.Providers)
	if err != nil {
		return c.bad("huggingface.providers", "%v", err)
	}
	c.HuggingFace.Providers = providers
	if c.Local.URL != "" {
		u, err := checkURL(c.Local.URL)
		if err != nil {
			return c.bad("local.url", "%v", err)
		}
		c.Local.URL = u
	}
	c.Local.PublicDir = expandHome(c.Local.PublicDir)
	switch c.Local.Protocol {
	case "jarvis", "hf":
	default:
		return c.bad("local.protocol", "unknown value %q (want jarvis or hf)", c.Local.Protocol)
	}
	return nil
}

// normalizeRetrieval checks the retrieval sources' addresses and what a
// search returns.
func (c *Config) normalizeRetrieval() error {
	for key, raw := range map[string]*string{"retrieval.wikipedia_url": &c.Retrieval.WikipediaURL, "retrieval.searxng_url": &c.Retrieval.SearxNGURL} {
		if strings.TrimSpace(*raw) == "" {
			*raw = ""
			continue
		}
		u, err := checkURL(*raw)
		if err != nil {
			return c.bad(key, "%v", err)
		}
		*raw = u
	}
	if c.Retrieval.Results < 1 || c.Retrieval.Results > 10 {
		return c.bad("retrieval.results", "%d is out of range (1 to 10)", c.Retrieval.Results)
	}
	if l := c.Retrieval.Language; l != "" && !validLanguage(l) {
		return c.bad("retrieval.language", "%q is not a language code (e.g. en, de, pt-br)", l)
	}
	return nil
}

// normalizeConstraints reads the standing constraints: the size limit
// and the preference, with its benchmark in either spelling.
func (c *Config) normalizeConstraints() error {
	c.Constraints.Limit = skills.Limit{}
	if c.Constraints.MaxSize != "" {
		l, err := skills.ParseLimit(c.Constraints.MaxSize)
		if err != nil {
			return c.bad("constraints.max_size", "%v", err)
		}
		c.Constraints.Limit = l
	}
	// The command line's spelling is the config file's too: prefer:
	// "best=wer:common_voice" (or "best:…") carries its benchmark inline
	// (pipeline.ParsePrefer reads every spelling).
	prefer := strings.ToLower(strings.TrimSpace(c.Constraints.Prefer))
	if rest, ok := strings.CutPrefix(prefer, "best"); ok && rest != "" && strings.ContainsRune("=: ", rune(rest[0])) {
		if strings.TrimSpace(c.Constraints.Benchmark) != "" {
			return c.bad("constraints.prefer", `names a benchmark (%q) and so does constraints.benchmark (%q): keep one`, rest[1:], c.Constraints.Benchmark)
		}
		prefer, c.Constraints.Benchmark = "best", rest[1:]
	}
	c.Constraints.Prefer = prefer
	switch prefer {
	case "", "smallest":
	case "best":
		if strings.TrimSpace(c.Constraints.Benchmark) == "" {
			return c.bad("constraints.benchmark", `is required when constraints.prefer is "best" (e.g. "common_voice wer")`)
		}
	default:
		return c.bad("constraints.prefer", `unknown value %q (want "", smallest, best with constraints.benchmark, or best=BENCHMARK)`, c.Constraints.Prefer)
	}
	return nil
}

// normalizePaths puts the folders and files Chorus writes or reads in
// their default places when unset, with ~ expanded.
func (c *Config) normalizePaths() error {
	if c.OutputDir == "" {
		c.OutputDir = filepath.Join(DataDir(), "outputs")
	}
	c.OutputDir = expandHome(c.OutputDir)
	if c.SkillsDir == "" {
		c.SkillsDir = filepath.Join(ConfigDir(), "skills")
	}
	c.SkillsDir = expandHome(c.SkillsDir)
	if c.Serve.AuthorizedKeys == "" {
		c.Serve.AuthorizedKeys = filepath.Join(ConfigDir(), "authorized_keys")
	}
	c.Serve.AuthorizedKeys = expandHome(c.Serve.AuthorizedKeys)
	return nil
}

// normalizeServe checks chorus serve's limits on sessions, idleness and
// unauthenticated connections.
func (c *Config) normalizeServe() error {
	if c.Serve.MaxSessions < 1 || c.Serve.MaxSessions > 1000 {
		return c.bad("serve.max_sessions", "%d is out of range (1 to 1000)", c.Serve.MaxSessions)
	}
	if c.Serve.IdleTimeout < 0 {
		return c.bad("serve.idle_timeout", "must not be negative (0 keeps idle connections open)")
	}
	if c.Serve.KeepAlive < 0 {
		return c.bad("serve.keepalive", "must not be negative (0 never asks)")
	}
	if c.Serve.HandshakeTimeout < time.Second || c.Serve.HandshakeTimeout > 10*time.Minute {
		return c.bad("serve.handshake_timeout", "%s is out of range (1s to 10m)", c.Serve.HandshakeTimeout)
	}
	if c.Serve.MaxUnauthenticated < 1 || c.Serve.MaxUnauthenticated > 100000 {
		return c.bad("serve.max_unauthenticated", "%d is out of range (1 to 100000)", c.Serve.MaxUnauthenticated)
	}
	if c.Serve.MaxUnauthenticatedPerSource < 1 || c.Serve.MaxUnauthenticatedPerSource > c.Serve.MaxUnauthenticated {
		return c.bad("serve.max_unauthenticated_per_source", "%d is out of range (1 to serve.max_unauthenticated, %d)", c.Serve.MaxUnauthenticatedPerSource, c.Serve.MaxUnauthenticated)
	}
	return nil
}

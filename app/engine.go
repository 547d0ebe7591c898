package app

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/endpoints/local"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/endpoints/retrieval"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// newEngine assembles the controller, the skill catalog (embedded, user
// files, the synced Hub cache, and a skill per tool of the MCP servers it
// starts) and the endpoints the configuration enables. How the MCP
// servers started is a.mcp; a.Close stops them. The controller and the
// engine log to opts.Logger.
func (a *App) newEngine(cfg *config.Config, opts Options) (*pipeline.Engine, error) {
	ctl, err := NewController(cfg, cfg.Controller.Model, opts.Logger)
	if err != nil {
		return nil, err
	}
	cat, err := LoadCatalog(cfg)
	if err != nil {
		return nil, usage(err)
	}
	tools, err := a.startMCP(cfg, cat, opts)
	if err != nil {
		return nil, err
	}
	router, err := buildRouter(cfg, cat, tools, opts.ResultTransport)
	if err != nil {
		return nil, usage(err)
	}
	return pipeline.New(ctl, cat, router, pipeline.Options{
		NumCandidates:   cfg.NumCandidateModels,
		MaxParallel:     cfg.MaxParallel,
		TaskTimeout:     cfg.TaskTimeout,
		OutputDir:       cfg.OutputDir,
		ControllerTasks: cfg.ControllerTasks,
		Selection:       pipeline.Selection(cfg.Selection),
		Revise:          cfg.Planner.Revise,
		SpillQuota:      cfg.SpillQuota.Limit().Bytes,
		EarlyAnswer:     cfg.EarlyAnswer(),
		// A model a request names outside the catalog is looked up
		// there, as chorus models sync reads the Hub.
		Hub:     &skills.Hub{BaseURL: cfg.HuggingFace.HubURL, Token: cfg.HuggingFace.Token},
		Logger:  opts.Logger,
		Home:    opts.Home,
		WorkDir: opts.WorkDir,
	}), nil
}

// NewController builds the controller for model with the configuration's
// host and options: the engine's, or another model's for chorus eval.
func NewController(cfg *config.Config, model string, log *slog.Logger) (*controller.Controller, error) {
	ctl, err := controller.New(cfg.Controller.Host, model, controller.Options{
		Kind:          cfg.Controller.Kind,
		Temperature:   cfg.Controller.Temperature,
		NumCtx:        cfg.Controller.NumCtx,
		PlanTokens:    cfg.Controller.PlanTokens,
		AnswerTokens:  cfg.Controller.AnswerTokens,
		PromptTokens:  cfg.Controller.PromptTokens,
		Timeout:       cfg.Controller.Timeout,
		MaxConcurrent: cfg.Controller.MaxConcurrent,
		Key:           cfg.Controller.Key,
		KeySource:     keySource(cfg),
		Capabilities:  cfg.Controller.Capabilities,
		Logger:        log,
	})
	if errors.Is(err, controller.ErrUnknownKind) {
		return nil, usage(fmt.Errorf("config: controller.kind: %w", err))
	}
	if err != nil {
		return nil, usage(fmt.Errorf("config: controller.host: %w", err))
	}
	return ctl, nil
}

// keySource names where the controller's key came from, for the fix of a
// refused one.
func keySource(cfg *config.Config) string {
	if cfg.Controller.KeyEnv != "" {
		return "controller.key_env (" + cfg.Controller.KeyEnv + ")"
	}
	return "controller.key"
}

// OllamaHost is where the Ollama expert endpoint reaches Ollama: the
// controller's server when it is one, else OLLAMA_HOST or Ollama's default.
func OllamaHost(cfg *config.Config) string {
	if cfg.Controller.Kind == "" || cfg.Controller.Kind == controller.DefaultKind {
		return cfg.Controller.Host
	}
	if h, err := config.NormalizeHost("ollama", cmp.Or(cfg.Env["OLLAMA_HOST"], "127.0.0.1:11434")); err == nil {
		return h
	}
	return "http://127.0.0.1:11434"
}

// LoadCatalog reads the skills (embedded and cfg.SkillsDir's) and overlays
// the synced Hub catalog: what chorus models sync refreshes.
func LoadCatalog(cfg *config.Config) (*skills.Catalog, error) {
	cat, err := skills.Load(cfg.SkillsDir)
	if err != nil {
		return nil, err
	}
	if _, err := cat.Overlay(HubCache(cfg)); err != nil {
		return nil, fmt.Errorf("the synced model catalog is unreadable (%w) — run `chorus models sync` again", err)
	}
	return cat, nil
}

// HubCache is where chorus models sync keeps what it fetched from the Hub.
func HubCache(cfg *config.Config) skills.Cache {
	return skills.Cache{Dir: cfg.Env.CacheDir() + "/catalog"}
}

// buildRouter creates the endpoints the configuration enables. The
// huggingface endpoint learns from cat which Inference Providers serve the
// catalog's models (curated, or synced from the Hub), and asks the Hub
// itself when a model runs. tools are the MCP servers' (nil without);
// downloads carries the result files providers answer with by URL (nil:
// public addresses only).
func buildRouter(cfg *config.Config, cat *skills.Catalog, tools *mcp.Endpoint, downloads http.RoundTripper) (*endpoints.Router, error) {
	httpClient := &http.Client{Timeout: 0} // per-request deadlines come from contexts
	eps := []endpoints.Endpoint{builtin.New()}
	eps = append(eps, huggingface.New(huggingface.Options{
		BaseURL:    cfg.HuggingFace.BaseURL,
		Token:      cfg.HuggingFace.Token,
		Providers:  cfg.HuggingFace.Providers,
		Hub:        &skills.Hub{BaseURL: cfg.HuggingFace.HubURL, Token: cfg.HuggingFace.Token, HTTPClient: httpClient},
		Known:      knownProviders(cat),
		MaxWait:    orOff(cfg.HuggingFace.MaxWait),
		MaxRetries: orOff(cfg.HuggingFace.MaxRetries),
		HTTPClient: httpClient,

		DownloadTransport: downloads,
	}))
	if cfg.Local.URL != "" {
		if _, err := url.Parse(cfg.Local.URL); err != nil {
			return nil, fmt.Errorf("config: local.url: %w", err)
		}
		eps = append(eps, local.New(local.Options{URL: cfg.Local.URL, Protocol: cfg.Local.Protocol, PublicDir: cfg.Local.PublicDir, HTTPClient: httpClient}))
	}
	if len(cfg.OpenAI) > 0 {
		eps = append(eps, openai.New(openai.Options{Servers: openAIServers(cfg), HTTPClient: httpClient, DownloadTransport: downloads}))
	}
	if cfg.Retrieval.WikipediaURL != "" || cfg.Retrieval.SearxNGURL != "" {
		eps = append(eps, retrieval.New(retrieval.Options{WikipediaURL: cfg.Retrieval.WikipediaURL, SearxNGURL: cfg.Retrieval.SearxNGURL,
			Results: cfg.Retrieval.Results, Language: cfg.Retrieval.Language}))
	}
	if cfg.Ollama.Experts {
		eps = append(eps, ollama.New(ollama.Options{Host: OllamaHost(cfg), HTTPClient: httpClient, Options: map[string]any{"num_predict": cfg.Controller.AnswerTokens}}))
	}
	if cfg.Command.Enabled {
		programs, err := newCommand(cfg, cat)
		if err != nil {
			return nil, err
		}
		eps = append(eps, programs)
	}
	if tools != nil {
		eps = append(eps, tools)
	}
	return endpoints.NewRouter(cfg.InferenceMode, eps...), nil
}

// openAIServers turns the config's openai list into the endpoint's
// servers, each serving only the tasks it lists.
func openAIServers(cfg *config.Config) []openai.Server {
	out := make([]openai.Server, 0, len(cfg.OpenAI))
	for i, s := range cfg.OpenAI {
		models := map[string][]string{}
		for _, t := range s.Tasks {
			models[t] = s.Models[t]
		}
		out = append(out, openai.Server{Name: s.Name, URL: s.URL, Key: s.Key, KeyEnv: s.KeyEnv, KeyVar: config.OpenAIKeyVar(s.Name),
			Voice: s.Voice, Models: models, Index: i})
	}
	return out
}

// knownProviders collects what the catalog knows of its models'
// Inference Providers, by model id.
func knownProviders(cat *skills.Catalog) map[string][]skills.Provider {
	out := map[string][]skills.Provider{}
	for _, s := range cat.All() {
		for _, m := range s.Models {
			if !m.ServedBy(skills.EndpointHuggingFace) {
				continue
			}
			// A model several skills list has one mapping, with an entry
			// per task.
			for _, p := range m.Providers {
				if !slices.Contains(out[m.ID], p) {
					out[m.ID] = append(out[m.ID], p)
				}
			}
		}
	}
	return out
}

// standingConstraints turns the config's constraints section into the
// pipeline's form.
func standingConstraints(cfg *config.Config) (pipeline.Constraints, error) {
	prefer, bench, err := pipeline.ParsePrefer(cfg.Constraints.Prefer, cfg.Constraints.Benchmark)
	if err != nil {
		return pipeline.Constraints{}, usage(fmt.Errorf("config: constraints.prefer: %w", err))
	}
	return pipeline.Constraints{Licenses: cfg.Constraints.Licenses, MaxSize: cfg.Constraints.MaxSize.Limit(), LocalOnly: cfg.Constraints.LocalOnly,
		Prefer: prefer, Benchmark: bench}, nil
}

// orOff maps a configured zero ("do not wait", "do not retry") onto the
// endpoints' negative "off", since their zero means "the default".
func orOff[T int | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

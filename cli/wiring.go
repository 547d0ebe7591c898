package cli

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/endpoints/local"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/endpoints/retrieval"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// buildEngine assembles the controller, the skill catalog (embedded, user
// files, and the synced Hub cache) and the endpoints the configuration
// enables. The controller and the engine log to log.
func buildEngine(cfg *config.Config, log *slog.Logger) (*pipeline.Engine, error) {
	eng, _, err := buildEngineWarn(cfg, log)
	return eng, err
}

// buildEngineWarn is buildEngine that also returns how the MCP servers
// started (nil when none is configured): mcpWarnings words what the user
// should be told of it before the first turn, checkAllowTools checks
// --allow-tool against it.
func buildEngineWarn(cfg *config.Config, log *slog.Logger) (*pipeline.Engine, []mcp.Status, error) {
	ctl, err := newController(cfg, cfg.Controller.Model, log)
	if err != nil {
		return nil, nil, err
	}
	cat, err := loadCatalog(cfg)
	if err != nil {
		return nil, nil, &exitError{code: 2, err: err}
	}
	tools, err := startMCP(cfg, cat, log)
	if err != nil {
		return nil, nil, err
	}
	router, err := buildRouter(cfg, cat, tools)
	if err != nil {
		return nil, nil, &exitError{code: 2, err: err}
	}
	var status []mcp.Status
	if tools != nil {
		status = tools.Status()
	}
	return pipeline.New(ctl, cat, router, pipeline.Options{
		NumCandidates:   cfg.NumCandidateModels,
		MaxParallel:     cfg.MaxParallel,
		TaskTimeout:     cfg.TaskTimeout,
		OutputDir:       cfg.OutputDir,
		ControllerTasks: cfg.ControllerTasks,
		Selection:       pipeline.Selection(cfg.Selection),
		Logger:          log,
	}), status, nil
}

// newController builds the controller for model with the configuration's
// host and options: the engine's, or another model's for chorus eval.
func newController(cfg *config.Config, model string, log *slog.Logger) (*controller.Controller, error) {
	ctl, err := controller.New(cfg.Controller.Host, model, controller.Options{
		Kind:          cfg.Controller.Kind,
		Temperature:   cfg.Controller.Temperature,
		NumCtx:        cfg.Controller.NumCtx,
		PlanTokens:    cfg.Controller.PlanTokens,
		AnswerTokens:  cfg.Controller.AnswerTokens,
		Timeout:       cfg.Controller.Timeout,
		MaxConcurrent: cfg.Controller.MaxConcurrent,
		Key:           cfg.Controller.Key,
		KeySource:     keySource(cfg),
		Capabilities:  cfg.Controller.Capabilities,
		Logger:        log,
	})
	if errors.Is(err, controller.ErrUnknownKind) {
		return nil, &exitError{code: 2, err: fmt.Errorf("config: controller.kind: %w", err)}
	}
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("config: controller.host: %w", err)}
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

// ollamaHost is where the Ollama expert endpoint reaches Ollama: the
// controller's server when it is one, else OLLAMA_HOST or Ollama's default.
func ollamaHost(cfg *config.Config) string {
	if cfg.Controller.Kind == "" || cfg.Controller.Kind == controller.DefaultKind {
		return cfg.Controller.Host
	}
	if h, err := config.NormalizeHost(cmp.Or(os.Getenv("OLLAMA_HOST"), "127.0.0.1:11434")); err == nil {
		return h
	}
	return "http://127.0.0.1:11434"
}

// loadCatalog reads the skills and overlays the synced Hub catalog.
func loadCatalog(cfg *config.Config) (*skills.Catalog, error) {
	cat, err := skills.Load(cfg.SkillsDir)
	if err != nil {
		return nil, err
	}
	if _, err := cat.Overlay(hubCache()); err != nil {
		return nil, fmt.Errorf("the synced model catalog is unreadable (%w) — run `chorus models sync` again", err)
	}
	return cat, nil
}

func hubCache() skills.Cache {
	return skills.Cache{Dir: config.CacheDir() + "/catalog"}
}

// buildRouter creates the endpoints the configuration enables. The
// huggingface endpoint learns from cat which Inference Providers serve the
// catalog's models (curated, or synced from the Hub), and asks the Hub
// itself when a model runs. tools are the MCP servers' (nil without).
func buildRouter(cfg *config.Config, cat *skills.Catalog, tools *mcp.Endpoint) (*endpoints.Router, error) {
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

		DownloadTransport: resultTransport,
	}))
	if cfg.Local.URL != "" {
		if _, err := url.Parse(cfg.Local.URL); err != nil {
			return nil, fmt.Errorf("config: local.url: %w", err)
		}
		eps = append(eps, local.New(local.Options{URL: cfg.Local.URL, Protocol: cfg.Local.Protocol, PublicDir: cfg.Local.PublicDir, HTTPClient: httpClient}))
	}
	if len(cfg.OpenAI) > 0 {
		eps = append(eps, openai.New(openai.Options{Servers: openAIServers(cfg), HTTPClient: httpClient, DownloadTransport: resultTransport}))
	}
	if cfg.Retrieval.WikipediaURL != "" || cfg.Retrieval.SearxNGURL != "" {
		eps = append(eps, retrieval.New(retrieval.Options{WikipediaURL: cfg.Retrieval.WikipediaURL, SearxNGURL: cfg.Retrieval.SearxNGURL,
			Results: cfg.Retrieval.Results, Language: cfg.Retrieval.Language}))
	}
	if cfg.Ollama.Experts {
		eps = append(eps, ollama.New(ollama.Options{Host: ollamaHost(cfg), HTTPClient: httpClient, Options: map[string]any{"num_predict": cfg.Controller.AnswerTokens}}))
	}
	if cfg.Command.Enabled {
		eps = append(eps, command.New(command.Options{}))
	}
	if tools != nil {
		eps = append(eps, tools)
	}
	return endpoints.NewRouter(cfg.Mode, eps...), nil
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
		out = append(out, openai.Server{Name: s.Name, URL: s.URL, Key: s.Key, KeyEnv: s.KeyEnv, Voice: s.Voice, Models: models, Index: i})
	}
	return out
}

// resultTransport carries the downloads of files that providers answer
// with by URL; nil dials public addresses only. Tests point it at their
// fake CDN.
var resultTransport http.RoundTripper

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
		return pipeline.Constraints{}, &exitError{code: 2, err: fmt.Errorf("config: constraints.prefer: %w", err)}
	}
	return pipeline.Constraints{Licenses: cfg.Constraints.Licenses, MaxSize: cfg.Constraints.Limit, LocalOnly: cfg.Constraints.LocalOnly,
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

package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// controllerChecks are the controller's server — Ollama, or the
// OpenAI-compatible server controller.kind names — and its model; with
// an OpenAI-compatible controller and Ollama's models as experts, Ollama
// too.
func controllerChecks(env Env) []Check {
	cfg := env.Config
	ctl, err := app.NewController(cfg, cfg.Controller.Model, env.Logger)
	if err != nil {
		return []Check{{ID: "controller.server", Name: "controller server", Run: func(context.Context) Result { return fromError(err) }}}
	}
	h := ctl.Hints()
	server := Check{ID: "controller.server", Name: h.Server, Hung: "something at " + ctl.Host() + " accepts connections but does not answer — restart it",
		Run: func(ctx context.Context) Result { return serverResult(ctl.Check(ctx), ctl.Host()) }}
	if ollamaKind(cfg) {
		server.Name = "Ollama"
	} else {
		server.Name = "OpenAI-compatible controller (" + cfg.Controller.Kind + ")"
	}
	model := Check{ID: "controller.model", Name: "controller model " + ctl.Model(), Hung: server.Hung,
		Run: func(ctx context.Context) Result { return modelResult(ctx, ctl, cfg) }}
	out := []Check{server, model}
	if !ollamaKind(cfg) && cfg.Ollama.Experts {
		host := app.OllamaHost(cfg)
		if ol, err := controller.New(host, "", controller.Options{Kind: controller.DefaultKind, Logger: env.Logger}); err == nil {
			out = append(out, Check{ID: "ollama.experts", Name: "Ollama (its models as experts)", Hung: "something at " + host + " does not answer — restart Ollama",
				Run: func(ctx context.Context) Result { return serverResult(ol.Check(ctx), host) }})
		}
	}
	return out
}

// ollamaKind reports whether the controller is an Ollama.
func ollamaKind(cfg *config.Config) bool {
	return cfg.Controller.Kind == "" || cfg.Controller.Kind == controller.DefaultKind
}

// serverResult says whether the server answered, and its version.
func serverResult(st controller.Status, host string) Result {
	switch {
	case st.Reachable && st.Version != "":
		return Result{Status: OK, Detail: st.Version + " at " + host}
	case st.Reachable:
		return Result{Status: OK, Detail: "answering at " + host}
	case st.Err != nil:
		return fromError(st.Err)
	}
	return Result{Status: Fail, Detail: "no answer at " + host}
}

// modelResult says whether the server has the controller model, and the
// context it was trained for beside the one Chorus asks for.
func modelResult(ctx context.Context, ctl *controller.Controller, cfg *config.Config) Result {
	st := ctl.Check(ctx)
	switch {
	case !st.Reachable:
		return Result{Status: Skip, Detail: "not checked: the server does not answer (above)"}
	case !st.Pulled:
		return fromError(st.Err)
	}
	detail := "on the server"
	if ollamaKind(cfg) {
		detail = "pulled"
	}
	n, err := ctl.ContextLength(ctx)
	switch {
	case err != nil:
		detail += "; its context length is unknown (" + text.OneLine(err.Error(), 120) + ")"
	case n > 0:
		detail += fmt.Sprintf(", context %d tokens", n)
		if asked := cfg.Controller.NumCtx; asked > 0 {
			detail += fmt.Sprintf(" (Chorus asks for %d: controller.num_ctx)", asked)
		}
	}
	if len(st.Capabilities) > 0 {
		detail += "; " + strings.Join(st.Capabilities, ", ")
	}
	return Result{Status: OK, Detail: detail}
}

// huggingFaceChecks are the token (the Hub says whose it is) and the
// Inference Providers router; both skip with inference_mode local.
func huggingFaceChecks(env Env) []Check {
	cfg := env.Config
	local := func(context.Context) Result {
		return Result{Status: Skip, Detail: "not used: inference_mode is local"}
	}
	token := Check{ID: "huggingface.token", Name: "Hugging Face token",
		Hung: "the Hub does not answer — check the network, or huggingface.hub_url", Run: local}
	router := Check{ID: "huggingface.router", Name: "Hugging Face router",
		Hung: "the router does not answer — check the network, or huggingface.base_url", Run: local}
	if cfg.InferenceMode == "local" {
		return []Check{token, router}
	}
	hub := &skills.Hub{BaseURL: cfg.HuggingFace.HubURL, Token: cfg.HuggingFace.Token, HTTPClient: env.HTTPClient}
	token.Run = func(ctx context.Context) Result {
		if cfg.HuggingFace.Token == "" {
			return Result{Status: Fail, Detail: "no token: huggingface.token, HF_TOKEN and the token huggingface-cli saves are all empty",
				Fix: "create one at https://huggingface.co/settings/tokens and set HF_TOKEN (or huggingface.token); or run with --mode local, which needs none"}
		}
		acct, err := hub.Whoami(ctx)
		if err != nil {
			return fromError(err)
		}
		detail := "valid: " + acct.Name
		if acct.TokenName != "" {
			detail += fmt.Sprintf(", token %q", acct.TokenName)
		}
		if acct.Role != "" {
			detail += " (" + acct.Role + ")"
		}
		if cfg.TokenSource != "" {
			detail += ", from " + cfg.TokenSource
		}
		return Result{Status: OK, Detail: detail}
	}
	router.Run = func(ctx context.Context) Result { return routerResult(ctx, env.HTTPClient, cfg) }
	return []Check{token, router}
}

// routerResult asks the router for the models its providers serve (GET
// {base_url}/v1/models, the OpenAI list with each model's providers):
// the router answers, and which providers are live.
func routerResult(ctx context.Context, hc *http.Client, cfg *config.Config) Result {
	base := strings.TrimSuffix(strings.TrimRight(cfg.HuggingFace.BaseURL, "/"), "/hf-inference")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return Result{Status: Fail, Detail: "huggingface.base_url " + text.RedactURL(base) + " is not a URL", Fix: "set it to https://router.huggingface.co"}
	}
	if cfg.HuggingFace.Token != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.HuggingFace.Token)
	}
	// It carries the token: no redirect to another origin takes it along.
	resp, err := scope.Credentialed(hc).Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Result{Status: Fail, Detail: "no answer from " + text.RedactURL(base) + " in time", Fix: "check the network, or huggingface.base_url"}
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // not the method and URL again
		}
		return Result{Status: Fail, Detail: "cannot reach " + text.RedactURL(base) + ": " + text.OneLine(err.Error(), 160), Fix: "check the network, or huggingface.base_url"}
	}
	defer resp.Body.Close()
	body, err := httpwire.ReadBody(resp, 16<<20)
	if err != nil || resp.StatusCode != http.StatusOK {
		return Result{Status: Fail, Detail: fmt.Sprintf("%s answered HTTP %d", text.RedactURL(base), resp.StatusCode),
			Fix: "check huggingface.base_url (https://router.huggingface.co); try again later"}
	}
	var list struct {
		Data []struct {
			Providers []struct {
				Provider string `json:"provider"`
				Status   string `json:"status"`
			} `json:"providers"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return Result{Status: Fail, Detail: "the answer at " + text.RedactURL(base) + "/v1/models is not the router's", Fix: "set huggingface.base_url to https://router.huggingface.co"}
	}
	var live []string
	for _, m := range list.Data {
		for _, p := range m.Providers {
			if p.Status == "live" && !slices.Contains(live, p.Provider) {
				live = append(live, p.Provider)
			}
		}
	}
	slices.Sort(live)
	detail := fmt.Sprintf("reachable at %s: %d chat models", text.RedactURL(base), len(list.Data))
	if len(live) > 0 {
		detail += " from " + strings.Join(live, ", ")
	}
	return Result{Status: OK, Detail: detail + "; providers tried: " + strings.Join(cfg.HuggingFace.Providers, ", ")}
}

// timeUntil is how long until t; a long time for the zero time.
func timeUntil(t time.Time) time.Duration {
	if t.IsZero() {
		return time.Hour
	}
	return time.Until(t)
}

// joinTasks lists tasks in words.
func joinTasks(tasks []string) string { return strings.Join(tasks, " and ") }

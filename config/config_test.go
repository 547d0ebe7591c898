package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func defaults(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testEnv is an environment of the test's own: the XDG directories and
// HF_HOME under a temporary directory dir, and nothing of the developer's
// setup; a test adds its variables to it.
func testEnv(t *testing.T) (dir string, env Env) {
	t.Helper()
	dir = t.TempDir()
	return dir, Env{"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_DATA_HOME": filepath.Join(dir, "data"), "HF_HOME": filepath.Join(dir, "hf")}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	dir, env := testEnv(t)
	c, err := Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Controller.Model != "qwen3:8b" || c.Controller.Host != "http://127.0.0.1:11434" || c.InferenceMode != "hybrid" ||
		c.NumCandidateModels != 5 || c.MaxParallel != 8 || c.Controller.Timeout != 5*time.Minute || c.File != "" || c.Planner.Revise != 1 {
		t.Fatalf("defaults = %+v", c)
	}
	if c.OutputDir != filepath.Join(dir, "data", "chorus", "outputs") || c.SkillsDir != filepath.Join(dir, "config", "chorus", "skills") {
		t.Fatalf("dirs = %s, %s", c.OutputDir, c.SkillsDir)
	}
	if c.HuggingFace.Token != "" || c.TokenSource != "" {
		t.Fatal("a token appeared from nowhere")
	}
}

func TestPrecedence(t *testing.T) {
	t.Parallel()
	dir, env := testEnv(t)
	file := filepath.Join(dir, "config", "chorus", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("controller:\n  model: llama3.1:8b\n  host: 10.0.0.5\nmax_parallel: 3\nconstraints:\n  licenses: [mit]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Controller.Model != "llama3.1:8b" || c.Controller.Host != "http://10.0.0.5:11434" || c.MaxParallel != 3 || c.File != file || len(c.Constraints.Licenses) != 1 {
		t.Fatalf("user file not applied: %+v", c)
	}
	env["CHORUS_MAX_PARALLEL"] = "5"
	env["OLLAMA_HOST"] = "0.0.0.0:9999"
	env["HF_TOKEN"] = "hf_secret"
	env["CHORUS_HUGGINGFACE_MAX_WAIT"] = "30s"
	c, err = Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxParallel != 5 || c.Controller.Host != "http://127.0.0.1:9999" || c.HuggingFace.Token != "hf_secret" || c.TokenSource != "HF_TOKEN" || c.HuggingFace.MaxWait != 30*time.Second {
		t.Fatalf("environment not applied: %+v", c)
	}
	env["CHORUS_CONTROLLER_HOST"] = "http://other:1234"
	if c, err = Load(defaults(t), "", env); err != nil || c.Controller.Host != "http://other:1234" {
		t.Fatalf("CHORUS_CONTROLLER_HOST should beat OLLAMA_HOST: %v %v", c.Controller.Host, err)
	}
	// The token: CHORUS_HUGGINGFACE_TOKEN, else HF_TOKEN, else
	// HUGGING_FACE_HUB_TOKEN, whichever is set.
	env["HUGGING_FACE_HUB_TOKEN"] = "hf_hub"
	if c, err = Load(defaults(t), "", env); err != nil || c.HuggingFace.Token != "hf_secret" || c.TokenSource != "HF_TOKEN" {
		t.Fatalf("HF_TOKEN should beat HUGGING_FACE_HUB_TOKEN: %q from %q, %v", c.HuggingFace.Token, c.TokenSource, err)
	}
	env["HF_TOKEN"] = ""
	if c, err = Load(defaults(t), "", env); err != nil || c.HuggingFace.Token != "hf_hub" || c.TokenSource != "HUGGING_FACE_HUB_TOKEN" {
		t.Fatalf("HUGGING_FACE_HUB_TOKEN alone: %q from %q, %v", c.HuggingFace.Token, c.TokenSource, err)
	}
	env["CHORUS_HUGGINGFACE_TOKEN"] = "hf_chorus"
	if c, err = Load(defaults(t), "", env); err != nil || c.HuggingFace.Token != "hf_chorus" || c.TokenSource != "CHORUS_HUGGINGFACE_TOKEN" {
		t.Fatalf("CHORUS_HUGGINGFACE_TOKEN should beat the others: %q from %q, %v", c.HuggingFace.Token, c.TokenSource, err)
	}
}

func TestProviders(t *testing.T) {
	t.Parallel()
	_, env := testEnv(t)
	c, err := Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.HuggingFace.Providers, ",") != "auto" || c.HuggingFace.BaseURL != "https://router.huggingface.co" {
		t.Errorf("defaults: providers %v, base %s", c.HuggingFace.Providers, c.HuggingFace.BaseURL)
	}
	env["CHORUS_HUGGINGFACE_PROVIDERS"] = "Fal-AI, auto"
	if c, err = Load(defaults(t), "", env); err != nil || strings.Join(c.HuggingFace.Providers, ",") != "fal-ai,auto" {
		t.Errorf("from the environment: %v, %v", c.HuggingFace.Providers, err)
	}
	delete(env, "CHORUS_HUGGINGFACE_PROVIDERS")
	file := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(file, []byte("huggingface:\n  providers: [replicate, hf-inference]\n"), 0o644)
	if c, err = Load(defaults(t), file, env); err != nil || strings.Join(c.HuggingFace.Providers, ",") != "replicate,hf-inference" {
		t.Errorf("from a file: %v, %v", c.HuggingFace.Providers, err)
	}
	os.WriteFile(file, []byte("huggingface:\n  providers: [groq]\n"), 0o644)
	if _, err = Load(defaults(t), file, env); err == nil || !strings.Contains(err.Error(), "huggingface.providers") || !strings.Contains(err.Error(), "fal-ai") {
		t.Errorf("an unknown provider: %v", err)
	}
}

func TestCachedHFToken(t *testing.T) {
	t.Parallel()
	dir, env := testEnv(t)
	if err := os.MkdirAll(filepath.Join(dir, "hf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hf", "token"), []byte("hf_cached\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.HuggingFace.Token != "hf_cached" || !strings.HasSuffix(c.TokenSource, "token") {
		t.Fatalf("token %q from %q", c.HuggingFace.Token, c.TokenSource)
	}
}

func TestInvalidValuesNameTheKey(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ env, val, key string }{
		"mode":       {"CHORUS_INFERENCE_MODE", "cloud", "inference_mode"},
		"candidates": {"CHORUS_NUM_CANDIDATE_MODELS", "0", "num_candidate_models"},
		"parallel":   {"CHORUS_MAX_PARALLEL", "-1", "max_parallel"},
		"revise":     {"CHORUS_PLANNER_REVISE", "-1", "planner.revise"},
		"revise max": {"CHORUS_PLANNER_REVISE", "9", "planner.revise"},
		"host":       {"CHORUS_CONTROLLER_HOST", "ftp://x", "controller.host"},
		"base url":   {"CHORUS_HUGGINGFACE_BASE_URL", "not a url", "huggingface.base_url"},
		"protocol":   {"CHORUS_LOCAL_PROTOCOL", "grpc", "local.protocol"},
		"prefer":     {"CHORUS_CONSTRAINTS_PREFER", "cheapest", "constraints.prefer"},
		"best":       {"CHORUS_CONSTRAINTS_PREFER", "best", "constraints.benchmark"},
		"timeout":    {"CHORUS_TASK_TIMEOUT", "0s", "task_timeout"},
		"model":      {"CHORUS_CONTROLLER_MODEL", " ", "controller.model"},
		"max size":   {"CHORUS_CONSTRAINTS_MAX_SIZE", "big", "constraints.max_size"},
		"sessions":   {"CHORUS_SERVE_MAX_SESSIONS", "0", "serve.max_sessions"},
		"idle":       {"CHORUS_SERVE_IDLE_TIMEOUT", "-1m", "serve.idle_timeout"},
		"metrics":    {"CHORUS_SERVE_METRICS", "9464", "serve.metrics"},
		"drain":      {"CHORUS_SERVE_DRAIN_TIMEOUT", "-1s", "serve.drain_timeout"},
		"provider":   {"CHORUS_HUGGINGFACE_PROVIDERS", "fal-ai,fal", "huggingface.providers"},
		"twice":      {"CHORUS_HUGGINGFACE_PROVIDERS", "auto auto", "huggingface.providers"},
		"prompt":     {"CHORUS_CONTROLLER_PROMPT_TOKENS", "100", "controller.prompt_tokens"},
		"prompt/ctx": {"CHORUS_CONTROLLER_PROMPT_TOKENS", "9000", "controller.prompt_tokens"},
		"spill":      {"CHORUS_SPILL_QUOTA", "lots", "spill_quota"},
		"spill 0":    {"CHORUS_SPILL_QUOTA", "0", "spill_quota"},
		"spill user": {"CHORUS_SERVE_SPILL_QUOTA", "2G", "serve.spill_quota"},
		"mcp quota":  {"CHORUS_SERVE_MCP_QUOTA", "-1MB", "serve.mcp_quota"},
		"big calls":  {"CHORUS_SERVE_MCP_BIG_CALLS", "0", "serve.mcp_big_calls"},
		"big body":   {"CHORUS_SERVE_MCP_BIG_BODY", "8M", "serve.mcp_big_body"},
		"big wait":   {"CHORUS_SERVE_MCP_BIG_WAIT", "0s", "serve.mcp_big_wait"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, env := testEnv(t)
			env[tc.env] = tc.val
			_, err := Load(defaults(t), "", env)
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != tc.key {
				t.Fatalf("err = %v, want an error naming %s", err, tc.key)
			}
			// Where the value came from: the variable that set the key.
			if envVar(tc.key) == tc.env && ce.Source != tc.env {
				t.Errorf("err = %v, want it to name %s as the source", err, tc.env)
			}
		})
	}
	t.Run("not a duration", func(t *testing.T) {
		_, env := testEnv(t)
		env["CHORUS_TASK_TIMEOUT"] = "soon"
		if _, err := Load(defaults(t), "", env); err == nil || !strings.Contains(err.Error(), "task_timeout") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestUserFileProblems(t *testing.T) {
	t.Parallel()
	dir, env := testEnv(t)
	typo := filepath.Join(dir, "typo.yaml")
	if err := os.WriteFile(typo, []byte("controller:\n  modle: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(defaults(t), typo, env)
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "controller.modle" || !strings.Contains(err.Error(), "unknown key") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Load(defaults(t), filepath.Join(dir, "missing.yaml"), env); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("an explicit missing file must fail: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("controller: [oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(defaults(t), bad, env); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Fatalf("err = %v", err)
	}
}

func TestNormalizeHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"127.0.0.1:11434":         "http://127.0.0.1:11434",
		"0.0.0.0":                 "http://127.0.0.1:11434",
		"https://ollama.example":  "https://ollama.example:443",
		"http://[::1]:8080/":      "http://[::1]:8080",
		"localhost":               "http://localhost:11434",
		"http://gpu-box:11434/x/": "http://gpu-box:11434/x",
	} {
		if got, err := NormalizeHost("", in); err != nil || got != want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x", "http://"} {
		if _, err := NormalizeHost("", bad); err == nil {
			t.Errorf("NormalizeHost(%q) succeeded", bad)
		}
	}
}

// TestDirs: each folder is its XDG variable's, else under the home
// directory, else a temporary folder — all read from the Env given, none
// from the process — and ~ in a configured path is that home.
func TestDirs(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the home fallbacks are the platform's")
	}
	xdg := Env{"XDG_CONFIG_HOME": "/x/config", "XDG_DATA_HOME": "/x/data", "XDG_CACHE_HOME": "/x/cache", "XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}
	home := Env{"HOME": "/home/u"}
	tmp := os.TempDir()
	for _, tc := range []struct {
		name      string
		dir       func(Env) string
		xdg, home string
		none      string
	}{
		{"config", Env.ConfigDir, "/x/config/chorus", "/home/u/.config/chorus", tmp + "/chorus-config"},
		{"data", Env.DataDir, "/x/data/chorus", "/home/u/.local/share/chorus", tmp + "/chorus-data"},
		{"sessions", Env.SessionsDir, "/x/data/chorus/sessions", "/home/u/.local/share/chorus/sessions", tmp + "/chorus-data/sessions"},
		{"cache", Env.CacheDir, "/x/cache/chorus", "/home/u/.cache/chorus", tmp + "/chorus-cache"},
		{"state", Env.StateDir, "/x/state/chorus", "/home/u/.local/state/chorus", tmp + "/chorus-state"},
	} {
		if got := [3]string{tc.dir(xdg), tc.dir(home), tc.dir(nil)}; got != [3]string{tc.xdg, tc.home, tc.none} {
			t.Errorf("%s: with XDG, with HOME, with neither: %q, want %q", tc.name, got, [3]string{tc.xdg, tc.home, tc.none})
		}
	}
	if got := home.expandHome("~/models"); got != "/home/u/models" {
		t.Errorf("~/models with HOME=/home/u is %q", got)
	}
	if got := Env(nil).expandHome("~/models"); got != "~/models" {
		t.Errorf("~/models without a home is %q, want it as written", got)
	}
}

// The openai kind takes the server's URL as written (the scheme's port, /v1
// added when there is no path), its key from key_env, and never Ollama's
// OLLAMA_HOST.
func TestControllerKindOpenAI(t *testing.T) {
	t.Parallel()
	_, env := testEnv(t)
	env["OLLAMA_HOST"] = "127.0.0.1:9999"
	env["CHORUS_CONTROLLER_KIND"] = "openai"
	env["CHORUS_CONTROLLER_HOST"] = "gpu-box"
	env["CHORUS_CONTROLLER_KEY_ENV"] = "VLLM_KEY"
	env["VLLM_KEY"] = " sk-vllm "
	env["CHORUS_CONTROLLER_MAX_CONCURRENT"] = "16"
	c, err := Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Controller.Kind != "openai" || c.Controller.Host != "http://gpu-box/v1" || c.Controller.Key != "sk-vllm" || c.Controller.MaxConcurrent != 16 {
		t.Fatalf("controller = %+v", c.Controller)
	}
	env["CHORUS_CONTROLLER_HOST"] = ""
	delete(env, "CHORUS_CONTROLLER_HOST")
	if c, err = Load(defaults(t), "", env); err != nil || c.Controller.Host != "http://127.0.0.1:11434/v1" {
		t.Fatalf("OLLAMA_HOST must not move an openai controller: %v %v", c.Controller.Host, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"https://router.huggingface.co/v1", "https://router.huggingface.co/v1"},
		{"http://10.0.0.5:8000", "http://10.0.0.5:8000/v1"},
		{"0.0.0.0:8080/v1/", "http://127.0.0.1:8080/v1"},
	} {
		if got, err := NormalizeHost("openai", tc.in); err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.in, got, err, tc.want)
		}
	}
	env["CHORUS_CONTROLLER_KEY"] = "sk-also"
	if _, err := Load(defaults(t), "", env); err == nil || !strings.Contains(err.Error(), "controller.key_env") {
		t.Fatalf("key and key_env together: %v", err)
	}
	env["CHORUS_CONTROLLER_KEY"] = ""
	env["CHORUS_CONTROLLER_CAPABILITIES"] = "sight"
	if _, err := Load(defaults(t), "", env); err == nil || !strings.Contains(err.Error(), "controller.capabilities") {
		t.Fatalf("an unknown capability: %v", err)
	}
}

// TestURLPasswordNotShownInErrors: a configured URL that is refused is
// shown without its password, also when it does not parse (no scheme, a
// bad port, a "/" inside the password), where the redaction of URLs in
// free text cannot find the password.
func TestURLPasswordNotShownInErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ value, want string }{
		{"admin:Secret1@hub.example", "admin:REDACTED@hub.example"},
		{"https://admin:Secret2@hub.example:port/", "https://admin:REDACTED@hub.example:port/"},
		{"http://admin:pa/Secret3@hub.example", "http://admin:REDACTED@hub.example"},
		{"ftp://admin:Secret4@hub.example", "ftp://admin:REDACTED@hub.example"},
		{"Secret5@hub.example:x", "REDACTED@hub.example:x"},
	} {
		_, err := loadFile(t, "huggingface:\n  hub_url: "+strconv.Quote(tc.value)+"\n")
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "huggingface.hub_url" || !strings.Contains(ce.Msg, "not an http(s) URL") {
			t.Errorf("%q: err %v", tc.value, err)
			continue
		}
		if strings.Contains(err.Error(), "Secret") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v (want it shown as %s)", tc.value, err, tc.want)
		}
	}
}

// TestServeOpsDefaults: no metrics listener unless asked, a 30 s drain.
func TestServeOpsDefaults(t *testing.T) {
	t.Parallel()
	_, env := testEnv(t)
	c, err := Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Serve.Metrics != "" || c.Serve.DrainTimeout != 30*time.Second {
		t.Fatalf("serve.metrics %q, serve.drain_timeout %s", c.Serve.Metrics, c.Serve.DrainTimeout)
	}
	// The bounds docs/deploy.md states.
	spill, user, quota, body := c.SpillQuota.Limit().Bytes, c.Serve.SpillQuota.Limit().Bytes, c.Serve.MCPQuota.Limit().Bytes, c.Serve.MCPBigBody.Limit().Bytes
	if spill != 1e9 || user != 2e9 || quota != 512e6 || c.Serve.MCPBigCalls != 2 || body != 8e6 || c.Serve.MCPBigWait != 30*time.Second {
		t.Fatalf("bounds: spill %d, per user %d, mcp quota %d, big calls %d over %d, wait %s", spill, user, quota, c.Serve.MCPBigCalls, body, c.Serve.MCPBigWait)
	}
	env["CHORUS_SERVE_METRICS"] = "127.0.0.1:9464"
	if c, err = Load(defaults(t), "", env); err != nil || c.Serve.Metrics != "127.0.0.1:9464" {
		t.Fatalf("serve.metrics from the environment: %q %v", c.Serve.Metrics, err)
	}
}

package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/chorusai/chorus/text"
)

// TestShownHidesEverySecret: `chorus config` shows every secret-bearing
// value as where it came from, never the value — each kind of secret, from
// each kind of source — and the configuration in use keeps the values.
func TestShownHidesEverySecret(t *testing.T) {
	t.Parallel()
	dir, env := testEnv(t)
	file := filepath.Join(dir, "c.yaml")
	body := `
controller:
  kind: openai
  host: https://bob:ctl-url-pass@llm.example.com/v1
huggingface:
  base_url: https://router.example.com/?api_key=hf-url-key&region=eu
local:
  url: http://tok-only-user@10.0.0.5:8005
openai:
  - {name: vllm, url: http://vllm:8000, key: oai-file-key, models: {ocr: [m]}}
  - {name: cloud, url: https://api.example.com, key_env: CLOUD_KEY, models: {ocr: [m]}}
  - {name: gone, url: https://api2.example.com, key_env: NOT_SET_KEY, models: {ocr: [m]}}
mcp:
  - name: web
    url: https://mcp.example.com/mcp
    key: mcp-file-key
    headers: {X-Api-Key: hdr-secret, Authorization: "Bearer hdr-bearer"}
  - name: gh
    command: github-mcp
    args: [--token, "https://u:arg-url-pass@example.com"]
    env: {GITHUB_TOKEN: "${GH_TOKEN}", LITERAL: env-literal-secret, MISSING: "${NO_SUCH_VAR}"}
serve:
  http_token_env: MCP_SERVE_TOKEN
`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"CHORUS_CONTROLLER_KEY": "ctl-env-key", "HF_TOKEN": "hf-env-token", "CLOUD_KEY": "oai-env-key",
		"GH_TOKEN": "gh-env-token", "MCP_SERVE_TOKEN": "serve-env-token", "NOT_SET_KEY": ""} {
		env[k] = v
	}
	c, err := Load(defaults(t), file, env)
	if err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(c.Shown())
	if err != nil {
		t.Fatal(err)
	}
	shown := string(out)
	for _, secret := range []string{"ctl-env-key", "ctl-url-pass", "hf-env-token", "hf-url-key", "tok-only-user", "oai-file-key", "oai-env-key",
		"mcp-file-key", "hdr-secret", "hdr-bearer", "arg-url-pass", "env-literal-secret", "serve-env-token"} {
		if strings.Contains(shown, secret) {
			t.Errorf("chorus config shows %s", secret)
		}
	}
	for key, want := range map[string]string{
		"controller.key":           "(set, from CHORUS_CONTROLLER_KEY)",
		"huggingface.token":        "(set, from HF_TOKEN)",
		"openai[0].key":            "(set, from " + file + ")",
		"openai[1].key":            "(set, from CLOUD_KEY)",
		"openai[2].key":            "(not set: NOT_SET_KEY is empty)",
		"mcp[0].key":               "(set, from mcp[0].key)",
		"mcp[0].headers.X-Api-Key": "(set, from " + file + ")",
		"mcp[1].env.GITHUB_TOKEN":  "(set, from GH_TOKEN)",
		"mcp[1].env.LITERAL":       "(set, from " + file + ")",
		"mcp[1].env.MISSING":       "(not set: NO_SUCH_VAR is empty)",
		"serve.http_token":         "(set, from MCP_SERVE_TOKEN)",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("%s is not shown as %q", key, want)
		}
	}
	for _, kept := range []string{"https://bob:REDACTED@llm.example.com/v1", "region=eu", "name: gh", "X-Api-Key:"} {
		if !strings.Contains(shown, kept) {
			t.Errorf("what is not a secret was lost: %q", kept)
		}
	}
	if c.Controller.Key != "ctl-env-key" || c.MCP[0].Headers["X-Api-Key"] != "hdr-secret" || c.MCP[1].Env["LITERAL"] != "env-literal-secret" ||
		c.OpenAI[0].Key != "oai-file-key" || c.MCP[1].Args[1] != "https://u:arg-url-pass@example.com" {
		t.Fatal("Shown changed the configuration in use")
	}
}

// TestEverySecretLookingKeyIsMasked: the rule covers the whole
// configuration, not a list that a new key could miss: every string key of
// Config whose name says it holds a key, a token or a password, set to a
// value, is masked.
func TestEverySecretLookingKeyIsMasked(t *testing.T) {
	t.Parallel()
	var c Config
	c.OpenAI, c.MCP = make([]OpenAIServer, 1), make([]MCPServer, 1)
	var secrets []string
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		for i := range v.NumField() {
			f, fv := v.Type().Field(i), v.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			switch {
			case fv.Kind() == reflect.String && text.SecretName(name):
				s := "SENTINEL-" + f.Name + "-" + name
				fv.SetString(s)
				secrets = append(secrets, s)
			case fv.Kind() == reflect.Struct:
				fill(fv)
			case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct:
				for j := range fv.Len() {
					fill(fv.Index(j))
				}
			}
		}
	}
	fill(reflect.ValueOf(&c).Elem())
	if len(secrets) < 5 {
		t.Fatalf("the rule finds only %v", secrets)
	}
	out, _ := yaml.Marshal(c.Shown())
	for _, s := range secrets {
		if strings.Contains(string(out), s) {
			t.Errorf("%s is shown", s)
		}
	}
}

// TestShownHidesSecretArgsAndQueries: `chorus config` hides the secrets
// of a command line in mcp[].args (--token X, --password=X, NAME_KEY=…,
// --api-key X, an Authorization header) and a ?token= in mcp[].url, and
// keeps the rest of both.
func TestShownHidesSecretArgsAndQueries(t *testing.T) {
	t.Parallel()
	var c Config
	c.MCP = []MCPServer{
		{Name: "gh", Command: "github-mcp", Args: []string{"--token", "arg-tok-1", "--password=arg-pw-2", "-e", "OPENAI_API_KEY=arg-key-3", "--api-key", "arg-key-4",
			"--header", "Authorization: Bearer arg-bearer-5", "--stdio", "/home/me"}},
		{Name: "web", URL: "https://mcp.example.com/mcp?token=url-tok-6&region=eu"},
	}
	out, err := yaml.Marshal(c.Shown())
	if err != nil {
		t.Fatal(err)
	}
	shown := string(out)
	for _, secret := range []string{"arg-tok-1", "arg-pw-2", "arg-key-3", "arg-key-4", "arg-bearer-5", "url-tok-6"} {
		if strings.Contains(shown, secret) {
			t.Errorf("chorus config shows %s:\n%s", secret, shown)
		}
	}
	for _, kept := range []string{"--token", "--password=REDACTED", "OPENAI_API_KEY=REDACTED", "--stdio", "/home/me", "?token=REDACTED&region=eu"} {
		if !strings.Contains(shown, kept) {
			t.Errorf("chorus config lost %q:\n%s", kept, shown)
		}
	}
	if c.MCP[0].Args[1] != "arg-tok-1" {
		t.Fatal("Shown changed the configuration in use")
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
)

// TestConfigHidesEverySecret: `chorus config` keeps its help's promise for
// every secret-bearing key — the controller's key from CHORUS_CONTROLLER_KEY,
// an MCP server's key, header values and env values, the token of mcp serve
// --http — showing where each came from.
func TestConfigHidesEverySecret(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{} })
	dir := e.env.ConfigDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `mcp:
  - {name: web, url: "https://mcp.example.com/mcp", key: mcp-key-1, headers: {X-Api-Key: hdr-value-2}}
  - {name: gh, command: gh-mcp, env: {GITHUB_TOKEN: "${GH_TOKEN}", PLAIN: env-value-3}}
serve:
  http_token: serve-token-4
`
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env["CHORUS_CONTROLLER_KEY"] = "ctl-key-0"
	e.env["GH_TOKEN"] = "gh-token-5"
	stdout, stderr, code := e.run("config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, secret := range []string{"ctl-key-0", "mcp-key-1", "hdr-value-2", "env-value-3", "serve-token-4", "gh-token-5"} {
		if strings.Contains(stdout, secret) {
			t.Errorf("chorus config prints %s:\n%s", secret, stdout)
		}
	}
	for _, want := range []string{"(set, from CHORUS_CONTROLLER_KEY)", "(set, from GH_TOKEN)", "X-Api-Key: (set, from "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("chorus config does not say %q:\n%s", want, stdout)
		}
	}
}

// TestUnknownChorusVariable: a CHORUS_ variable nothing reads stops every
// command that reads the configuration, as the same typo in the file
// does: exit 2, naming the variable it almost is. The variable a command
// line names for Chorus to read (--token-env) is not one of them.
func TestUnknownChorusVariable(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{} })
	e.env["CHORUS_CONTROLLER_MODLE"] = "x"
	for _, args := range [][]string{{"config"}, {"run", "hello"}, {"models", "list"}} {
		_, stderr, code := e.run(args...)
		if code != 2 || !strings.Contains(stderr, "CHORUS_CONTROLLER_MODLE") || !strings.Contains(stderr, "did you mean CHORUS_CONTROLLER_MODEL?") {
			t.Errorf("chorus %s: exit %d, stderr %q; want exit 2 naming CHORUS_CONTROLLER_MODEL", strings.Join(args, " "), code, stderr)
		}
	}
	e.env["CHORUS_CONTROLLER_MODLE"] = ""
	e.env["CHORUS_MCP_TOKEN"] = "s3cret"
	_, stderr, code := e.run("mcp", "serve", "--http", "a:b:c", "--token-env", "CHORUS_MCP_TOKEN")
	if code != 2 || strings.Contains(stderr, "CHORUS_MCP_TOKEN") || !strings.Contains(stderr, "--http") {
		t.Errorf("mcp serve --token-env CHORUS_MCP_TOKEN: exit %d, stderr %q; want only the bad --http refused", code, stderr)
	}
}

package config

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"
)

// TestUnknownChorusVariableRefused: a CHORUS_ variable nothing reads is
// refused like an unknown key of the file, naming the variable it almost
// is; the ones Chorus reads — keys, servers' keys, variables the file or
// the caller names, the TUI's, the developers' — pass, and so does an
// empty one (it sets nothing).
func TestUnknownChorusVariableRefused(t *testing.T) {
	t.Parallel()
	const file = "openai:\n  - name: laptop\n    url: http://a\n    models: {ocr: [m]}\n" +
		"mcp:\n  - name: tools\n    command: x\n    env: {TOKEN: \"${CHORUS_MY_TOOLS_TOKEN}\"}\n" +
		"controller:\n  key_env: CHORUS_MY_CONTROLLER_KEY\n"
	for _, tc := range []struct{ name, hint string }{
		{"CHORUS_CONTROLLER_MODLE", "did you mean CHORUS_CONTROLLER_MODEL?"},
		{"CHORUS_INFERENCE_MOD", "did you mean CHORUS_INFERENCE_MODE?"},
		{"CHORUS_SERVE_MAX_SESSION", "did you mean CHORUS_SERVE_MAX_SESSIONS?"},
		{"CHORUS_HUGGINGFACE_TOKNE", "did you mean CHORUS_HUGGINGFACE_TOKEN?"},
		{"CHORUS_IMAGE", "did you mean CHORUS_IMAGES?"},
		// A listed server's key, misspelt.
		{"CHORUS_OPENAI_LAPTPO_KEY", "did you mean CHORUS_OPENAI_LAPTOP_KEY?"},
		{"CHORUS_ZZZ_WHATEVER", ""},
	} {
		_, err := loadFile(t, file, tc.name, "x")
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.name || ce.Source != "environment" || !strings.Contains(ce.Msg, "unknown variable") {
			t.Errorf("%s=x: err %v, want it refused as an unknown variable", tc.name, err)
			continue
		}
		if tc.hint == "" && strings.Contains(ce.Msg, "did you mean") || !strings.Contains(ce.Msg, tc.hint) {
			t.Errorf("%s=x: %q, want the hint %q", tc.name, ce.Msg, tc.hint)
		}
	}
	for _, env := range [][]string{
		{"CHORUS_CONTROLLER_MODEL", "m:1"},
		{"CHORUS_CONTROLLER_MODLE", ""},
		{"CHORUS_OPENAI_LAPTOP_KEY", "k"},
		{"CHORUS_MCP_TOOLS_KEY", "k"},
		// Another file's server: not a typo of one listed here.
		{"CHORUS_OPENAI_CLUSTER_KEY", "k"},
		{"CHORUS_MY_TOOLS_TOKEN", "t"},
		{"CHORUS_MY_CONTROLLER_KEY", "k"},
		{"CHORUS_IMAGES", "kitty"},
		{"CHORUS_OLLAMA_BIN", "/x/ollama"},
		{"CHORUS_MCP_NODE", "/x/node"},
		{"CHORUS_TEST_CONTROLLER_KIND", "openai"},
	} {
		if _, err := loadFile(t, file, env...); err != nil {
			t.Errorf("%s=%s: %v", env[0], env[1], err)
		}
	}
	// A variable the caller reads itself (--token-env's) passes.
	_, env := testEnv(t)
	env["CHORUS_MCP_TOKEN"] = "secret"
	if _, err := Load(defaults(t), "", env); err == nil || !strings.Contains(err.Error(), "CHORUS_MCP_TOKEN") {
		t.Errorf("CHORUS_MCP_TOKEN not read by anyone: %v", err)
	}
	if _, err := Load(defaults(t), "", env, "CHORUS_MCP_TOKEN"); err != nil {
		t.Errorf("CHORUS_MCP_TOKEN read by the caller: %v", err)
	}
}

// TestEveryChorusVariableIsKnown: every CHORUS_ variable the project's
// code reads — the program's, its tests', its tools': os.Getenv of a
// name, or a constant naming one — is one Load accepts, so a developer's exported CHORUS_OLLAMA_BIN or a test that runs
// the binary under its own variables is never refused. A new one is
// either a key of config.yaml or goes in developerEnv (documented there).
func TestEveryChorusVariableIsKnown(t *testing.T) {
	t.Parallel()
	_, env := testEnv(t)
	c, err := Load(defaults(t), "", env)
	if err != nil {
		t.Fatal(err)
	}
	v := regexp.MustCompile(`(?:Getenv|LookupEnv)\("(CHORUS_[A-Z0-9_]*[A-Z0-9])"\)|const \w+\s*=\s*"(CHORUS_[A-Z0-9_]*[A-Z0-9])"`)
	names := map[string]string{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range v.FindAllStringSubmatch(string(b), -1) {
			names[m[1]+m[2]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	u := viper.New()
	u.SetConfigType("yaml")
	if err := u.ReadConfig(bytes.NewReader(defaults(t))); err != nil {
		t.Fatal(err)
	}
	var bound []string
	for _, k := range u.AllKeys() {
		bound = append(bound, envVar(k))
	}
	for name, path := range names {
		c.Env = Env{name: "x"}
		if err := c.checkEnv(bound, nil); err != nil {
			t.Errorf("%s (named in %s) would be refused: %v — add it to developerEnv if only tests read it", name, path, err)
		}
	}
	if !slices.Contains(developerEnv, "CHORUS_OLLAMA_BIN") || len(names) < 10 {
		t.Fatalf("found only %d names", len(names))
	}
}

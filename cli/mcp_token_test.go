package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPServeHTTPRefusesAMissingToken: serve.http_token_env or
// --token-env naming a variable that is unset or empty stops `chorus mcp
// serve --http` before it listens, exit 2, naming the variable and the
// fix — systemd's EnvironmentFile=- skips a missing file without a word,
// and the server would otherwise start open to every caller.
func TestMCPServeHTTPRefusesAMissingToken(t *testing.T) {
	t.Parallel()
	const unset = "CHORUS_TEST_TOKEN_NEVER_SET_7f3a"
	if _, ok := os.LookupEnv(unset); ok {
		t.Skip(unset + " is set in this environment")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("serve:\n  http_token_env: "+unset+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"serve.http_token_env unset", []string{"--config", cfg, "mcp", "serve", "--http", "127.0.0.1:0"}, []string{"serve.http_token_env", unset, "unset"}},
		{"--token-env unset", []string{"mcp", "serve", "--http", "127.0.0.1:0", "--token-env", unset}, []string{"--token-env", unset, "unset"}},
	} {
		// A server that starts anyway would serve until the test's end:
		// the deadline stops it, and the exit code tells.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var out, errb bytes.Buffer
		cmd := newRootCmd(bareEnv(t).options())
		cmd.SetArgs(c.args)
		cmd.SetOut(&out)
		cmd.SetErr(&errb)
		code := 0
		if err := cmd.ExecuteContext(ctx); err != nil {
			code = exitCode(err)
			errb.WriteString(err.Error())
		}
		cancel()
		stderr := errb.String()
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (it must not start without its token): %s", c.name, code, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: the refusal does not say %q: %s", c.name, w, stderr)
			}
		}
	}
}

// TestMCPTokenTable: where the token of mcp serve --http comes from, and
// when its absence stops the start — a variable named but unset or empty
// does, whichever names it; no variable named serves without a token (the
// start then says who can reach it).
func TestMCPTokenTable(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SET": " tok-1 ", "EMPTY": "  "}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct {
		name                 string
		file, fileEnv, flag  string
		token, from, errWord string
	}{
		{name: "none", token: "", from: "serve.http_token"},
		{name: "in the file", file: "tok-f", token: "tok-f", from: "serve.http_token"},
		{name: "file's variable set", fileEnv: "SET", token: "tok-1", from: "SET"},
		{name: "file's variable unset", fileEnv: "NOPE", errWord: "serve.http_token_env names NOPE, which is unset"},
		{name: "file's variable empty", fileEnv: "EMPTY", errWord: "serve.http_token_env names EMPTY, which is empty"},
		{name: "flag set", flag: "SET", token: "tok-1", from: "SET"},
		{name: "flag overrides the file", fileEnv: "NOPE", flag: "SET", token: "tok-1", from: "SET"},
		{name: "flag unset", flag: "NOPE", errWord: "--token-env names NOPE, which is unset"},
		{name: "flag empty", flag: "EMPTY", errWord: "--token-env names EMPTY, which is empty"},
	} {
		token, from, err := mcpToken(c.file, c.fileEnv, c.flag, lookup)
		switch {
		case c.errWord != "":
			if err == nil || !strings.Contains(err.Error(), c.errWord) || !strings.Contains(err.Error(), "— set ") {
				t.Errorf("%s: %v, want a refusal saying %q and the fix", c.name, err, c.errWord)
			}
		case err != nil || token != c.token || from != c.from:
			t.Errorf("%s: %q from %q, %v; want %q from %q", c.name, token, from, err, c.token, c.from)
		}
	}
}

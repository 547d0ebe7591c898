package config

import (
	"errors"
	"strings"
	"testing"
)

// TestMCPServers: the mcp list is read with its own case (variable and
// header names), ${VAR} in env is expanded, keys come from their
// variables, and the Hugging Face preset gets the Hugging Face token.
func TestMCPServers(t *testing.T) {
	t.Parallel()
	c, err := loadFile(t, `
mcp:
  - name: everything
    command: npx
    args: [-y, "@modelcontextprotocol/server-everything", stdio]
    env: {GitHub_Token: "${MY_GH}", PLAIN: literal}
    tools: [get-sum]
  - name: remote
    url: https://mcp.example.com/mcp/
    headers: {X-Team: Search}
    key_env: REMOTE_KEY
    tasks: {text-to-image: [flux_generate]}
  - name: huggingface
  - name: spaces
    url: http://127.0.0.1:7860/gradio_api/mcp/sse
    transport: sse
`, "MY_GH", "ghp_abc", "REMOTE_KEY", "rk-1", "HF_TOKEN", "hf_tok", "CHORUS_MCP_SPACES_KEY", "sp-2")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MCP) != 4 {
		t.Fatalf("servers %+v", c.MCP)
	}
	ev, remote, hf, spaces := c.MCP[0], c.MCP[1], c.MCP[2], c.MCP[3]
	if ev.Env["GitHub_Token"] != "ghp_abc" || ev.Env["PLAIN"] != "literal" || strings.Join(ev.Args, " ") != "-y @modelcontextprotocol/server-everything stdio" {
		t.Errorf("stdio server %+v", ev)
	}
	if remote.Headers["X-Team"] != "Search" || remote.Key != "rk-1" || remote.KeyFrom != "REMOTE_KEY" || remote.Tasks["text-to-image"][0] != "flux_generate" {
		t.Errorf("http server %+v", remote)
	}
	if remote.URL != "https://mcp.example.com/mcp/" {
		t.Errorf("the URL lost its trailing slash: %s", remote.URL)
	}
	if hf.URL != HuggingFaceMCP || hf.Key != "hf_tok" || !strings.Contains(hf.KeyFrom, "HF_TOKEN") {
		t.Errorf("huggingface preset %+v", hf)
	}
	if spaces.Transport != "sse" || spaces.Key != "sp-2" || spaces.KeyFrom != "CHORUS_MCP_SPACES_KEY" {
		t.Errorf("sse server %+v", spaces)
	}
}

// TestMCPProblemsNameTheKey: each mistake is refused at start with the
// key to fix and what to write.
func TestMCPProblemsNameTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, key, msg string }{
		{"mcp:\n  - command: npx\n", "mcp[0].name", "is empty"},
		{"mcp:\n  - name: a.b\n    command: npx\n", "mcp[0].name", "only letters"},
		{"mcp:\n  - name: a\n    command: x\n  - name: A\n    command: y\n", "mcp[1].name", "also mcp[0]"},
		{"mcp:\n  - name: a\n", "mcp[0]", "neither command"},
		{"mcp:\n  - name: a\n    command: x\n    url: http://h\n", "mcp[0]", "both command and url"},
		{"mcp:\n  - name: a\n    url: localhost:3001\n", "mcp[0].url", "not an http(s) URL"},
		{"mcp:\n  - name: a\n    url: http://h\n    transport: grpc\n", "mcp[0].transport", "not a transport"},
		{"mcp:\n  - name: a\n    command: x\n    key: k\n", "mcp[0]", "are for a url"},
		{"mcp:\n  - name: a\n    url: http://h\n    env: {A: b}\n", "mcp[0]", "are for a program"},
		{"mcp:\n  - name: a\n    command: x\n    comand: y\n", "mcp[0].comand", "unknown key"},
		{"mcp:\n  - name: a\n    command: x\n    args: -y\n", "mcp[0]", "are lists"},
		{"mcp:\n  name: a\n  command: x\n", "mcp", "is a list of servers"},
		{"mcp:\n  - name: a\n    url: http://h\n    tasks: {text-to-image: []}\n", "mcp[0].tasks.text-to-image", "names no tool"},
	} {
		_, err := loadFile(t, tc.yaml)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) {
			t.Errorf("%q: %v, want key %s and %q", tc.yaml, err, tc.key, tc.msg)
		}
	}
}

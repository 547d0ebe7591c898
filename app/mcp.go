package app

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// MCPServers turns the config's mcp list into the endpoint's servers (for
// chorus mcp list, which starts them without an engine).
func MCPServers(cfg *config.Config) []mcp.Server {
	out := make([]mcp.Server, 0, len(cfg.MCP))
	for i, s := range cfg.MCP {
		out = append(out, mcp.Server{Name: s.Name, Index: i, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers,
			Key: s.Key, KeyFrom: s.KeyFrom, Transport: s.Transport, Tasks: s.Tasks, Tools: s.Tools, Trust: s.Trust})
	}
	return out
}

// startMCP starts (or reaches) the configured MCP servers, all at once,
// and adds a skill per tool to cat. A server that fails does not stop
// Chorus: its tools are missing, `chorus mcp list` says why, and the log
// has it; a.mcp is how each started. The servers Chorus started are
// stopped when the App closes. It returns nil when the configuration lists
// no server.
func (a *App) startMCP(cfg *config.Config, cat *skills.Catalog, opts Options) (*mcp.Endpoint, error) {
	if len(cfg.MCP) == 0 {
		return nil, nil
	}
	for i, s := range cfg.MCP {
		for task := range s.Tasks {
			if _, ok := cat.Skill(task); !ok {
				return nil, usage(&config.Error{Key: fmt.Sprintf("mcp[%d].tasks", i), Source: cfg.File,
					Msg: fmt.Sprintf("unknown task %q (chorus skills lists them)", task)})
			}
		}
	}
	ep := mcp.New(mcp.Options{Servers: MCPServers(cfg), HTTPClient: &http.Client{}, Version: opts.Version, Logger: opts.Logger})
	a.onClose(ep.Close)
	ep.Start(context.Background())
	a.mcp = ep.Status()
	for _, s := range ep.Skills() {
		if _, taken := cat.Skill(s.Name); taken {
			opts.Logger.Warn("mcp tool shadowed by a skill of the same name", "skill", s.Name)
			continue
		}
		cat.Put(s)
	}
	return ep, nil
}

// mcpWarnings words what went wrong starting the MCP servers, one line
// each with its fix: a server that did not start, a tool the configuration
// names that its server does not offer. Without them the tools would just
// be missing, and only chorus mcp list would say why.
func mcpWarnings(status []mcp.Status) []string {
	var out []string
	for _, st := range status {
		if st.State != "running" {
			out = append(out, text.Clean(st.Error)+" — its tools are left out (chorus mcp list shows the servers)")
		}
		for _, p := range st.Problems {
			out = append(out, text.Clean(p))
		}
	}
	return out
}

// checkAllowTools checks the --allow-tool (or serve.allow_tools: from)
// patterns against the MCP servers as they started: a pattern that names no
// configured server, or a tool its running server does not offer Chorus, is
// a typo that would silently allow nothing, so it is refused (exit 2) with
// what is configured. A server that did not start has no tool list: a
// pattern for it is only warned about (the server may start for a later
// task).
func checkAllowTools(from string, patterns []string, status []mcp.Status) (warnings []string, err error) {
	refuse := func(p, format string, args ...any) error {
		return usage(fmt.Errorf("%s %s: %s", from, p, fmt.Sprintf(format, args...)))
	}
	names := make([]string, 0, len(status))
	for _, st := range status {
		names = append(names, st.Name)
	}
	for _, p := range patterns {
		server, tool, ok := strings.Cut(p, ".")
		if !ok || server == "" || tool == "" {
			return nil, refuse(p, "want server.tool, or server.* for all of a server's tools (chorus mcp list shows them)")
		}
		i := slices.IndexFunc(status, func(st mcp.Status) bool { return st.Name == server })
		switch {
		case len(status) == 0:
			return nil, refuse(p, "no MCP server is configured (add one under mcp: in the config file; docs/mcp.md)")
		case i < 0:
			return nil, refuse(p, "no MCP server %q is configured (configured: %s)", server, strings.Join(names, ", "))
		case status[i].State != "running":
			warnings = append(warnings, fmt.Sprintf("%s %s: the MCP server %s did not start, so whether it offers %s is not known (chorus mcp list shows why)", from, p, server, tool))
		case tool == "*":
		case !slices.Contains(status[i].Tools, p):
			return nil, refuse(p, "the MCP server %s offers Chorus no tool %q (its tools: %s)", server, tool, toolList(server, status[i].Tools))
		}
	}
	return warnings, nil
}

// toolList names a server's tools without the server prefix, the first 20.
func toolList(server string, qualified []string) string {
	if len(qualified) == 0 {
		return "none"
	}
	short := make([]string, 0, min(len(qualified), 20))
	for _, q := range qualified[:min(len(qualified), 20)] {
		short = append(short, strings.TrimPrefix(q, server+"."))
	}
	if len(qualified) > 20 {
		return strings.Join(short, ", ") + fmt.Sprintf(", … %d more", len(qualified)-20)
	}
	return strings.Join(short, ", ")
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

func newMCPCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Use MCP servers' tools as experts, or serve Chorus as an MCP tool",
		Long: `Model Context Protocol. The servers listed under mcp: in the configuration lend Chorus their tools:
each tool is a skill <server>.<tool> the planner may use (docs/mcp.md). chorus mcp list shows each
server's state and tools; chorus mcp serve makes Chorus itself a tool for other MCP clients.`,
		Args: noSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMCPListCmd(g), newMCPServeCmd(g))
	return cmd
}

func newMCPListCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start (or reach) each configured MCP server and show its state and tools",
		Long: `Starts (or reaches) every server of the configuration's mcp list, as a chat would, and shows for each
its state — running with its tools, or why it failed and the fix. A tool marked "asks" is not annotated
read-only: it runs only once you approve it (in the chat), or with --allow-tool in chorus run.
Exit status 1 when a server failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if len(cfg.MCP) == 0 {
				if asJSON {
					fmt.Fprintln(w, "[]")
					return nil
				}
				where := cfg.File
				if where == "" {
					where = config.ConfigDir() + "/config.yaml"
				}
				fmt.Fprintf(w, "no MCP servers are configured — add an mcp: list to %s (docs/mcp.md shows how)\n", where)
				return nil
			}
			ep := mcp.New(mcp.Options{Servers: mcpServers(cfg), HTTPClient: &http.Client{}, Version: chorusVersion(), Logger: g.logger()})
			defer ep.Close()
			ep.Start(cmd.Context())
			status := ep.Status()
			if asJSON {
				b, _ := json.MarshalIndent(status, "", "  ")
				fmt.Fprintln(w, string(b))
			} else {
				printMCPStatus(w, status, ep.Skills(), listWidth(w))
			}
			for _, st := range status {
				if st.State != "running" {
					return &exitError{code: 1}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the servers' states as JSON")
	return cmd
}

// printMCPStatus writes each server: its transport and where it is, then
// its state and its tools (arguments, a mark when it asks, its brief), or
// its error, all within width.
func printMCPStatus(w io.Writer, status []mcp.Status, tools []*skills.Skill, width int) {
	for i, st := range status {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, text.OneLine(fmt.Sprintf("%s  %s  %s", st.Name, st.Transport, st.Where), width))
		switch st.State {
		case "running":
			who := ""
			if st.Server != "" {
				who = " (" + text.Clean(st.Server) + ")"
			}
			fmt.Fprintf(w, "  running%s, %d tool(s)\n", who, len(st.Tools))
		default:
			fmt.Fprintf(w, "  %s: %s\n", st.State, text.Clean(st.Error))
			continue
		}
		for _, s := range tools {
			if s.Tool == nil || s.Tool.Server != st.Name {
				continue
			}
			args := make([]string, len(s.Args))
			for j, a := range s.Args {
				args[j] = a.Name
				if a.Optional {
					args[j] += "?"
				}
			}
			mark := "    "
			if s.Tool.NeedsApproval() != "" {
				mark = "  asks "
			} else {
				mark = "       "
			}
			sig := s.Name + "(" + strings.Join(args, ",") + ")"
			line := mark + sig
			if room := width - len([]rune(line)) - 2; room >= 20 {
				line += "  " + text.OneLine(s.Brief, room)
			}
			fmt.Fprintln(w, text.OneLine(line, width))
		}
	}
}

func newMCPServeCmd(g *globalFlags) *cobra.Command {
	return newMCPServeCommand(g)
}

// mcpContext bounds nothing: servers are started with their own timeout.
var _ = context.Background

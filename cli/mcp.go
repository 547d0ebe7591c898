package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/mcpserve"
	"github.com/chorusai/chorus/metrics"
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
read-only: it runs only once you approve it (in the chat, or chorus run on a terminal), or with --allow-tool in chorus run.
Exit status 1 when a server failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			w := stdout(cmd)
			if len(cfg.MCP) == 0 {
				if asJSON {
					fmt.Fprintln(w, "[]")
					return nil
				}
				where := cfg.File
				if where == "" {
					where = g.env.ConfigDir() + "/config.yaml"
				}
				fmt.Fprintf(w, "no MCP servers are configured — add an mcp: list to %s (docs/mcp.md shows how)\n", where)
				return nil
			}
			ep := mcp.New(mcp.Options{Servers: app.MCPServers(cfg), HTTPClient: &http.Client{}, Version: g.version, Logger: g.logger()})
			defer ep.Close()
			ep.Start(cmd.Context())
			status := ep.Status()
			if asJSON {
				if err := writeJSON(w, status); err != nil {
					return err
				}
			} else {
				printMCPStatus(w, status, ep.Skills(), listWidth(w))
			}
			failed := 0
			for _, st := range status {
				if st.State != "running" {
					failed++
				}
			}
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d MCP servers did not start", failed, len(status))}
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
		fmt.Fprintln(w, text.Clip(text.Clean(fmt.Sprintf("%s  %s  %s", st.Name, st.Transport, st.Where)), width))
		switch st.State {
		case "running":
			who := ""
			if st.Server != "" {
				who = " (" + text.Clean(st.Server) + ")"
			}
			fmt.Fprintf(w, "  running%s, %d tool(s)\n", who, len(st.Tools))
			for _, p := range st.Problems {
				fmt.Fprint(w, wrapIndented("problem: "+text.Clean(p), width, "  ", "    "))
			}
		default:
			fmt.Fprint(w, wrapIndented(st.State+": "+text.Clean(st.Error), width, "  ", "    "))
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
			mark := "       "
			if s.Tool.NeedsApproval() != "" {
				mark = "  asks "
			}
			sig := s.Name + "(" + strings.Join(args, ",") + ")"
			line := mark + sig
			if room := width - len([]rune(line)) - 2; room >= 20 {
				line += "  " + text.OneLine(s.Brief, room)
			}
			fmt.Fprintln(w, text.Clip(line, width))
		}
	}
}

// wrapIndented wraps s at word boundaries within width, the first line
// after first, the others after rest.
func wrapIndented(s string, width int, first, rest string) string {
	var b strings.Builder
	line := first
	lineLen := len([]rune(first))
	empty := true
	for _, word := range strings.Fields(s) {
		n := len([]rune(word))
		if !empty && lineLen+1+n > width {
			b.WriteString(line + "\n")
			line, lineLen, empty = rest, len([]rune(rest)), true
		}
		if !empty {
			line += " "
			lineLen++
		}
		line += word
		lineLen += n
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

func newMCPServeCmd(g *globalFlags) *cobra.Command {
	var addr, metricsAddr, tokenEnv string
	var allow []string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve Chorus as an MCP server (stdio, or streamable HTTP with --http)",
		Long: `Makes Chorus a tool for other MCP clients (Claude Desktop, crush, oterm, …): over stdio, the client
starting chorus mcp serve itself, or over streamable HTTP with --http ADDR (loopback when ADDR gives
no host; /mcp is the endpoint). Two tools: chorus runs a request — plan, pick expert models, run them,
answer — and returns the answer with the images and audio it made as content and other files as
links; chorus_plan only plans. Files come as embedded data in the call and are the only files Chorus
reads: a path named in the request is not opened. Each client session is a chat (later calls see the
earlier ones) with its own folder under the data directory. MCP tools of Chorus's own mcp: servers
that are not annotated read-only run only with --allow-tool. Over --http, every user of this machine
can reach 127.0.0.1: with a token (serve.http_token_env, or --token-env VAR) only requests that carry it
as "Authorization: Bearer <token>" are served. docs/mcp.md shows client configurations.

With --http, --metrics ADDR serves Prometheus metrics, /healthz and /readyz on a listener of its own,
and Ctrl+C or SIGTERM drains: no new connections or calls, the calls in flight finish (up to
serve.drain_timeout) and are told so if they asked for progress; a second signal stops at once.`,
		Example: `  chorus mcp serve
  chorus mcp serve --http 127.0.0.1:8808
  CHORUS_MCP_TOKEN=$(openssl rand -hex 16) chorus mcp serve --http :8808 --token-env CHORUS_MCP_TOKEN`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tokenEnv != "" {
				g.reads = append(g.reads, tokenEnv)
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if addr != "" {
				if addr, err = loopbackDefault(addr); err != nil {
					return &exitError{code: 2, err: fmt.Errorf("--http: %w", err)}
				}
			}
			token, tokenFrom := "", ""
			if addr != "" {
				// The token itself never goes on the command line, where
				// every user of the machine can read it (ps).
				if token, tokenFrom, err = mcpToken(cfg.Serve.HTTPToken, cfg.Serve.HTTPTokenEnv, tokenEnv, g.env.LookupEnv); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			if metricsAddr != "" {
				if addr == "" {
					return &exitError{code: 2, err: errors.New("--metrics needs --http: over stdio the server is one client's, which sees its turns itself")}
				}
				if err := metrics.CheckAddr(metricsAddr, addr, "the MCP endpoint's port"); err != nil {
					return &exitError{code: 2, err: fmt.Errorf("--metrics: %w", err)}
				}
			}
			var m *metrics.Metrics
			opts := app.Options{AllowTools: allow}
			if metricsAddr != "" {
				m = metrics.New(metrics.Options{})
				opts.Observer = m
			}
			a, err := g.newApp(cfg, opts)
			if err != nil {
				return err
			}
			defer a.Close()
			if m != nil {
				m.Watch(a.Engine())
			}
			f := mcpServeFlags{addr: addr, metrics: metricsAddr, allow: allow, token: token, tokenFrom: tokenFrom,
				version: g.version, log: g.logger()}
			if addr == "" {
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return serveMCP(ctx, a, m, f, cmd.ErrOrStderr())
			}
			// Over HTTP the signals drain the server (runDrained).
			return serveMCP(cmd.Context(), a, m, f, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (e.g. 127.0.0.1:8808; a bare :PORT is loopback) instead of stdio")
	cmd.Flags().StringVar(&tokenEnv, "token-env", "", "with --http, serve only requests carrying the bearer token held in the variable VAR (overrides serve.http_token_env)")
	cmd.Flags().StringVar(&metricsAddr, "metrics", "", "with --http: serve Prometheus metrics, /healthz and /readyz on ADDR, e.g. 127.0.0.1:9465 (a bare :PORT is loopback; never the MCP port)")
	cmd.Flags().StringSliceVar(&allow, "allow-tool", nil, "let the MCP tool NAME of Chorus's own mcp: servers run though it is not annotated read-only (repeatable)")
	return cmd
}

// mcpToken is the bearer token `chorus mcp serve --http` wants and where
// it came from: the variable --token-env names (flagEnv), else the one
// serve.http_token_env names (fileEnv), else serve.http_token (file; ""
// serves without one). A variable named but unset or empty is an error,
// never "no token": systemd's EnvironmentFile=- skips a missing file
// without a word, and the server would start open to every caller.
func mcpToken(file, fileEnv, flagEnv string, lookup func(string) (string, bool)) (token, from string, err error) {
	name, key := flagEnv, "--token-env"
	if name == "" {
		name, key = fileEnv, "serve.http_token_env"
	}
	if name == "" {
		return strings.TrimSpace(file), "serve.http_token", nil
	}
	v, ok := lookup(name)
	if token = strings.TrimSpace(v); token != "" {
		return token, name, nil
	}
	state := "empty"
	if !ok {
		state = "unset"
	}
	return "", "", fmt.Errorf("%s names %s, which is %s: the server would take requests with no token — set %s to the token clients must send (in the service's EnvironmentFile, or export it), or remove %s to serve without one", key, name, state, name, key)
}

// loopbackDefault puts a bare ":PORT" on 127.0.0.1: Chorus answers
// whoever reaches it, so it listens beyond this machine only when told.
func loopbackDefault(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not HOST:PORT (e.g. 127.0.0.1:8808)", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// mcpServeFlags are what `chorus mcp serve` was given: where to listen
// ("" for stdio), where to serve the metrics (--metrics), --allow-tool,
// the bearer token --http wants ("" for none) and where it came from, and
// the version and log of the command.
type mcpServeFlags struct {
	addr, metrics    string
	allow            []string
	token, tokenFrom string
	version          string
	log              *slog.Logger
}

// serveMCP runs `chorus mcp serve` on a: stdio when f.addr is empty, else
// streamable HTTP on f.addr, with m (when not nil) on f.metrics. Nothing
// but the protocol goes to stdout.
func serveMCP(ctx context.Context, a *app.App, m *metrics.Metrics, f mcpServeFlags, stderr io.Writer) error {
	addr, log := f.addr, f.log
	for _, w := range a.Warnings() {
		fmt.Fprintf(stderr, "chorus: warning: %s\n", w)
	}
	cfg := a.Config()
	srv, err := mcpserve.New(mcpserve.Options{Service: a.Service(), Constraints: a.Constraints(), Dir: filepath.Join(cfg.Env.DataDir(), "mcp-serve"),
		AllowTools: f.allow, Version: f.version, Logger: log,
		Quota: cfg.Serve.MCPQuota.Limit().Bytes, MaxBigCalls: cfg.Serve.MCPBigCalls, BigBody: cfg.Serve.MCPBigBody.Limit().Bytes, BigWait: cfg.Serve.MCPBigWait})
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	defer srv.Close()
	if addr == "" {
		log.Info("mcp server on stdio")
		if err := srv.SDK().Run(ctx, &sdk.StdioTransport{}); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return &exitError{code: 1, err: fmt.Errorf("mcp serve: %w", err)}
		}
		return nil
	}
	return serveMCPHTTP(ctx, cfg, srv, m, f, stderr)
}

// serveMCPHTTP serves srv over streamable HTTP on f.addr, m on
// f.metrics, until a drain or a second signal ends it.
func serveMCPHTTP(ctx context.Context, cfg *config.Config, srv *mcpserve.Server, m *metrics.Metrics, f mcpServeFlags, stderr io.Writer) error {
	log := f.log
	l, err := new(net.ListenConfig).Listen(ctx, "tcp", f.addr)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("cannot listen on %s: %w", f.addr, err)}
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if m != nil {
		if err := startMetrics(ctx, m, f.metrics, l.Addr().String(), "the MCP endpoint's port", stderr, log); err != nil {
			l.Close()
			return err
		}
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(srv.MemoryTarget())
	}
	token := f.token
	hs := &http.Server{Handler: srv.HTTPHandler(mcpserve.HTTPOptions{Token: token, Logger: log}), ReadHeaderTimeout: 10 * time.Second}
	log.Info("mcp server on http", "addr", l.Addr().String(), "token", token != "")
	fmt.Fprintf(stderr, "chorus: serving MCP on http://%s/mcp — Ctrl+C or SIGTERM drains (calls finish), twice stops.\n", l.Addr())
	host, _, _ := net.SplitHostPort(l.Addr().String())
	switch {
	case token != "":
		fmt.Fprintf(stderr, "chorus: requests must carry the bearer token from %s.\n", f.tokenFrom)
	case !net.ParseIP(host).IsLoopback():
		fmt.Fprintf(stderr, "chorus: %s is not a loopback address and there is no token: anyone who can reach it can run Chorus on this machine (set serve.http_token_env or --token-env)\n", host)
	default:
		fmt.Fprintf(stderr, "chorus: no token: every user of this machine can reach %s (set serve.http_token_env or --token-env)\n", host)
	}
	var draining atomic.Bool
	serve := func(ctx context.Context) error {
		errc := make(chan error, 1)
		go func() { errc <- hs.Serve(l) }()
		select {
		case err := <-errc:
			if !draining.Load() && !errors.Is(err, http.ErrServerClosed) {
				return &exitError{code: 1, err: err}
			}
			<-ctx.Done() // the drain closed the listener; it ends by cancelling ctx
		case <-ctx.Done():
		}
		// The answers of the calls that finished are written; the
		// clients' open event streams are closed.
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		_ = hs.Close()
		return nil
	}
	drain := func(ctx context.Context) {
		draining.Store(true)
		if m != nil {
			m.Drain()
		}
		hs.SetKeepAlivesEnabled(false)
		_ = l.Close()
		if err := srv.Drain(ctx); err != nil {
			log.Warn("mcp serve drain cut short: the calls still running are cancelled", "err", err.Error())
		}
	}
	return runDrained(ctx, drainedServer{serve: serve, drain: drain, timeout: cfg.Serve.DrainTimeout, what: "the MCP server"}, stderr, log)
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/metrics"
	"github.com/chorusai/chorus/sshd"
)

func newServeCmd(g *globalFlags) *cobra.Command {
	var addr, metricsAddr string
	cmd := &cobra.Command{
		Use:   "serve --ssh ADDR",
		Short: "Serve the chat over SSH to the keys in authorized_keys",
		Long: `Serve the chat over SSH: every connection gets its own chat on its own terminal, sized and resized
with it, while the controller and the endpoints are shared.

Only the public keys in serve.authorized_keys (default $XDG_CONFIG_HOME/chorus/authorized_keys) may log
in — no passwords, no shell or commands, no port forwarding. Each key has its own directory under
$XDG_DATA_HOME/chorus/ssh-users (its sessions and generated files), and its chat reads and writes files only
there. The host key is created once as $XDG_DATA_HOME/chorus/ssh_host_ed25519_key. serve.max_sessions
bounds the chats at once; serve.idle_timeout closes idle connections. Each connection's key fingerprint
and address go to the log file. Sound is never played on the server; the chat offers the file instead.

--metrics ADDR (serve.metrics) serves Prometheus metrics at /metrics, with /healthz and /readyz, on a
listener of its own. Ctrl+C or SIGTERM drains: no new connections or turns, every chat told the server
is restarting, the turns in flight finish (up to serve.drain_timeout, 30s) and are saved; a second
signal stops at once.`,
		Example: `  chorus serve --ssh :2222          then, elsewhere:  ssh -p 2222 chorus.example.org
  chorus serve --ssh 127.0.0.1:2222
  chorus serve --ssh :2222 --metrics 127.0.0.1:9464`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, g, addr, metricsAddr) },
	}
	cmd.Flags().StringVar(&addr, "ssh", "", "address to serve SSH on, e.g. :2222 or 127.0.0.1:2222")
	cmd.Flags().StringVar(&metricsAddr, "metrics", "", "serve Prometheus metrics, /healthz and /readyz on ADDR, e.g. 127.0.0.1:9464 (serve.metrics; a bare :PORT is loopback; never the ssh port)")
	return cmd
}

// runServe is chorus serve: the ssh server, its metrics listener when
// asked, until a drain or a second signal ends it.
func runServe(cmd *cobra.Command, g *globalFlags, addr, metricsAddr string) error {
	if addr == "" {
		return &exitError{code: 2, err: errors.New(`serve needs --ssh ADDR, e.g. chorus serve --ssh :2222`)}
	}
	cfg, err := g.load()
	if err != nil {
		return err
	}
	if metricsAddr == "" {
		metricsAddr = cfg.Serve.Metrics
	}
	var m *metrics.Metrics
	// The tools ssh users' turns may run though they may change things:
	// a typo is refused now, as --allow-tool's is.
	appOpts := app.Options{AllowTools: cfg.Serve.AllowTools, AllowToolsFrom: "serve.allow_tools"}
	if metricsAddr != "" {
		if err := metrics.CheckAddr(metricsAddr, addr, "the ssh port"); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--metrics (serve.metrics): %w", err)}
		}
		m = metrics.New(metrics.Options{RefusalReasons: sshd.RefusalReasons()})
		appOpts.Observer = m
	}
	a, err := g.newApp(cfg, appOpts)
	if err != nil {
		return err
	}
	defer a.Close()
	for _, w := range a.Warnings() {
		fmt.Fprintf(cmd.ErrOrStderr(), "chorus: warning: %s\n", w)
	}
	keepAlive := cfg.Serve.KeepAlive
	if keepAlive == 0 {
		keepAlive = -1 // configured 0 is "never ask"; the server's 0 is its default
	}
	opts := sshd.Options{
		Config:         cfg,
		Service:        a.Service(),
		Constraints:    a.Constraints(),
		HostKey:        filepath.Join(cfg.Env.DataDir(), "ssh_host_ed25519_key"),
		AuthorizedKeys: cfg.Serve.AuthorizedKeys,
		UsersDir:       filepath.Join(cfg.Env.DataDir(), "ssh-users"),
		MaxSessions:    cfg.Serve.MaxSessions,
		IdleTimeout:    cfg.Serve.IdleTimeout,

		HandshakeTimeout:            cfg.Serve.HandshakeTimeout,
		MaxUnauthenticated:          cfg.Serve.MaxUnauthenticated,
		MaxUnauthenticatedPerSource: cfg.Serve.MaxUnauthenticatedPerSource,
		AllowPull:                   cfg.Serve.AllowPull,
		KeepAlive:                   keepAlive,
		Version:                     g.version,
		Logger:                      g.logger(),
	}
	if m != nil {
		m.Watch(a.Engine())
		opts.Refused = m.Refused
	}
	srv, err := sshd.New(opts)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	l, err := new(net.ListenConfig).Listen(cmd.Context(), "tcp", addr)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("cannot listen on %s: %w", addr, err)}
	}
	ctx, stop := context.WithCancel(cmd.Context())
	defer stop()
	if m != nil {
		if err := startMetrics(ctx, m, metricsAddr, l.Addr().String(), "the ssh port", cmd.ErrOrStderr(), g.logger()); err != nil {
			l.Close()
			return err
		}
	}
	g.logger().Info("ssh server listening", "addr", l.Addr().String(), "host_key", srv.HostKeyFingerprint(),
		"authorized_keys", cfg.Serve.AuthorizedKeys, "max_sessions", cfg.Serve.MaxSessions, "idle_timeout", cfg.Serve.IdleTimeout,
		"drain_timeout", cfg.Serve.DrainTimeout)
	fmt.Fprintf(stdout(cmd), "chorus: serving the chat over SSH on %s — host key %s; keys allowed in %s. Ctrl+C or SIGTERM drains (turns finish), twice stops.\n",
		l.Addr(), srv.HostKeyFingerprint(), cfg.Serve.AuthorizedKeys)
	return runDrained(ctx, drainedServer{
		serve: func(ctx context.Context) error { return srv.Serve(ctx, l) },
		drain: func(ctx context.Context) {
			if m != nil {
				m.Drain()
			}
			srv.Drain(ctx)
		},
		timeout: cfg.Serve.DrainTimeout,
		what:    "the ssh server",
	}, cmd.ErrOrStderr(), g.logger())
}

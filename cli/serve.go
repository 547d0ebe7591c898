package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/sshd"
)

func newServeCmd(g *globalFlags) *cobra.Command {
	var addr string
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
and address go to the log file. Sound is never played on the server; the chat offers the file instead.`,
		Example: `  chorus serve --ssh :2222          then, elsewhere:  ssh -p 2222 chorus.example.org
  chorus serve --ssh 127.0.0.1:2222`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if addr == "" {
				return &exitError{code: 2, err: errors.New(`serve needs --ssh ADDR, e.g. chorus serve --ssh :2222`)}
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			a, err := g.newApp(cfg, app.Options{})
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
			srv, err := sshd.New(sshd.Options{
				Config:         cfg,
				Service:        a.Service(),
				Constraints:    a.Constraints(),
				HostKey:        filepath.Join(config.DataDir(), "ssh_host_ed25519_key"),
				AuthorizedKeys: cfg.Serve.AuthorizedKeys,
				UsersDir:       filepath.Join(config.DataDir(), "ssh-users"),
				MaxSessions:    cfg.Serve.MaxSessions,
				IdleTimeout:    cfg.Serve.IdleTimeout,

				HandshakeTimeout:            cfg.Serve.HandshakeTimeout,
				MaxUnauthenticated:          cfg.Serve.MaxUnauthenticated,
				MaxUnauthenticatedPerSource: cfg.Serve.MaxUnauthenticatedPerSource,
				AllowPull:                   cfg.Serve.AllowPull,
				KeepAlive:                   keepAlive,
				Version:                     g.version,
				Logger:                      g.logger(),
			})
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			l, err := net.Listen("tcp", addr)
			if err != nil {
				return &exitError{code: 1, err: fmt.Errorf("cannot listen on %s: %w", addr, err)}
			}
			g.logger().Info("ssh server listening", "addr", l.Addr().String(), "host_key", srv.HostKeyFingerprint(),
				"authorized_keys", cfg.Serve.AuthorizedKeys, "max_sessions", cfg.Serve.MaxSessions, "idle_timeout", cfg.Serve.IdleTimeout)
			fmt.Fprintf(cmd.OutOrStdout(), "chorus: serving the chat over SSH on %s — host key %s; keys allowed in %s. Ctrl+C stops.\n",
				l.Addr(), srv.HostKeyFingerprint(), cfg.Serve.AuthorizedKeys)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return srv.Serve(ctx, l)
		},
	}
	cmd.Flags().StringVar(&addr, "ssh", "", "address to serve SSH on, e.g. :2222 or 127.0.0.1:2222")
	return cmd
}

package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/chorusai/chorus/metrics"
)

// What an operator of a long-running server (chorus serve --ssh, chorus
// mcp serve --http) gets beside it: the metrics listener and a drain on
// the first SIGTERM or Ctrl+C.

// drainedServer is a server that can end gently.
type drainedServer struct {
	// serve runs the server until ctx ends (then it stops at once) or
	// until a drain has ended it.
	serve func(ctx context.Context) error
	// drain stops new connections and turns and returns once those in
	// flight have finished, or when ctx ends (the timeout, a second
	// signal).
	drain func(ctx context.Context)
	// timeout bounds the drain (serve.drain_timeout); 0 stops at once.
	timeout time.Duration
	// what names the server in messages ("the ssh server").
	what string
}

// runDrained runs d until it ends: the first SIGINT or SIGTERM drains it
// for up to d.timeout, a second one stops it at once (turns in flight
// cancelled and saved as such), as does the timeout.
func runDrained(parent context.Context, d drainedServer, stderr io.Writer, log *slog.Logger) error {
	ctx, stop := context.WithCancel(parent)
	defer stop()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-ctx.Done():
			return
		}
		if d.timeout <= 0 {
			log.Info(d.what+" stopping", "signal", sig.String())
			stop()
			return
		}
		fmt.Fprintf(stderr, "chorus: %s — draining %s: no new connections or turns; the turns in flight finish (up to %s). Again stops at once.\n",
			sig, d.what, d.timeout)
		log.Info(d.what+" draining", "signal", sig.String(), "drain_timeout", d.timeout)
		dctx, cancel := context.WithTimeout(ctx, d.timeout)
		defer cancel()
		go func() {
			select {
			case sig := <-sigs:
				fmt.Fprintf(stderr, "chorus: %s again — stopping at once; turns still running are cancelled and saved as such.\n", sig)
				log.Info(d.what+" stopping at once", "signal", sig.String())
				cancel()
				stop()
			case <-dctx.Done():
			}
		}()
		d.drain(dctx)
		stop()
	}()
	return d.serve(ctx)
}

// startMetrics serves m on addr until ctx ends — never on the server's
// own port (serverAddr; what names it). It says where.
func startMetrics(ctx context.Context, m *metrics.Metrics, addr, serverAddr, what string, stderr io.Writer, log *slog.Logger) error {
	if err := metrics.CheckAddr(addr, serverAddr, what); err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--metrics (serve.metrics): %w", err)}
	}
	// A bare :PORT is loopback, as mcp serve --http's: the metrics name
	// the host's turns, experts and queue, and reach beyond this machine
	// only when a host says so (0.0.0.0:9464, docs/deploy.md).
	addr, err := loopbackDefault(addr)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--metrics (serve.metrics): %w", err)}
	}
	l, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("cannot listen on %s for the metrics (serve.metrics, --metrics): %w", addr, err)}
	}
	go func() {
		if err := m.Serve(ctx, l); err != nil {
			log.Error("metrics listener stopped", "err", err.Error())
		}
	}()
	log.Info("metrics listening", "addr", l.Addr().String())
	fmt.Fprintf(stderr, "chorus: metrics on http://%s/metrics — health at /healthz, readiness at /readyz\n", l.Addr())
	return nil
}

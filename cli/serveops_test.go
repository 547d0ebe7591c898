package cli

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"testing"

	"github.com/chorusai/chorus/metrics"
)

// TestMetricsBarePortIsLoopback: --metrics :PORT (and serve.metrics)
// listens on 127.0.0.1, as mcp serve --http does with a bare port — the
// metrics name the host's turns, experts and queue, so they reach beyond
// this machine only when a host says so (docs/deploy.md).
func TestMetricsBarePortIsLoopback(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ addr, want string }{
		{":0", `^chorus: metrics on http://127\.0\.0\.1:\d+/metrics`},
		{"127.0.0.1:0", `^chorus: metrics on http://127\.0\.0\.1:\d+/metrics`},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var said bytes.Buffer
		err := startMetrics(ctx, metrics.New(metrics.Options{}), c.addr, "127.0.0.1:1", "the ssh port", &said, slog.New(slog.DiscardHandler))
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", c.addr, err)
		}
		if !regexp.MustCompile(c.want).MatchString(said.String()) {
			t.Errorf("--metrics %s: %q, want it on loopback", c.addr, said.String())
		}
	}
}

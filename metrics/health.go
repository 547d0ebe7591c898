package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/chorusai/chorus/pipeline"
)

// ReadyFunc says whether the server can serve a turn now; its error says
// why not, for the operator reading /readyz.
type ReadyFunc func(ctx context.Context) error

// EngineReady is the readiness of a server running turns on eng: the skill
// catalog is loaded and the controller answers with its model.
func EngineReady(eng *pipeline.Engine) ReadyFunc {
	return func(ctx context.Context) error {
		if cat := eng.Catalog(); cat == nil || len(cat.Names()) == 0 {
			return errors.New("the skill catalog is not loaded")
		}
		if st := eng.Controller().Check(ctx); st.Err != nil {
			return fmt.Errorf("the controller: %w", st.Err)
		}
		return nil
	}
}

// readyFor is how long a readiness answer is reused: probes from systemd,
// Kubernetes and a load balancer or two must not each cost the controller
// server a round of requests.
const readyFor = 2 * time.Second

// readiness runs the check at most once per readyFor; probes meanwhile
// share its answer (and wait for it while it runs).
type readiness struct {
	check ReadyFunc

	mu  sync.Mutex
	at  time.Time
	err error
}

func (r *readiness) set(check ReadyFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.check, r.at = check, time.Time{}
}

func (r *readiness) get(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.check == nil {
		return nil
	}
	if !r.at.IsZero() && time.Since(r.at) < readyFor {
		return r.err
	}
	r.err, r.at = r.check(ctx), time.Now()
	return r.err
}

func (m *Metrics) readyz(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if m.draining.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("draining: the server is restarting\n"))
		return
	}
	ctx, cancel := context.WithTimeout(req.Context(), 10*time.Second)
	defer cancel()
	if err := m.ready.get(ctx); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("not ready: " + err.Error() + "\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// Serve answers Handler on l until ctx ends, then closes it. Its own
// listener: never the ssh port or the MCP endpoint's (CheckAddr).
func (m *Metrics) Serve(ctx context.Context, l net.Listener) error {
	hs := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// CheckAddr refuses a metrics address on the port the server serves on
// (what, e.g. "the ssh port"): the two must never share a listener, and a
// second listen on it would fail after the server had started. Port 0
// (any free port) never clashes.
func CheckAddr(metricsAddr, serverAddr, what string) error {
	_, mp, err := net.SplitHostPort(metricsAddr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT (e.g. 127.0.0.1:9464)", metricsAddr)
	}
	_, sp, err := net.SplitHostPort(serverAddr)
	if err != nil || mp == "0" || mp == "" {
		return nil
	}
	if mp == sp {
		return fmt.Errorf("%s is %s — give the metrics a port of their own, e.g. 127.0.0.1:9464", metricsAddr, what)
	}
	return nil
}

// Package metrics is a Chorus server's window for its operator: Prometheus
// metrics of the chats, turns, controller queue, experts and the ssh
// front door, with /healthz and /readyz, on a listener of their own
// (serve.metrics, --metrics) — chorus serve --ssh and chorus mcp serve
// --http.
//
// Nothing here is sprinkled through the code: the turns, experts and
// tokens are read from the turns' event streams (Metrics is the chat
// service's conversation.Observer, which sees every front end's turns),
// the controller's queue from its own stats at each scrape, and the ssh
// refusals are told by the server. Every value lives in one Metrics and
// its registry: no package state, and two servers in one process (tests)
// never mix.
//
// Labels name kinds of things, never who or what: no user, key
// fingerprint, path or request ever becomes a label value, and every
// label has a small fixed set of values (cleanLabel bounds the ones read
// from events).
package metrics

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline"
)

// Turn outcomes (chorus_turns_total's outcome), expert call outcomes
// (chorus_expert_calls_total's).
const (
	OK        = "ok"
	Failed    = "failed"
	Cancelled = "cancelled"
)

// Options configure the metrics.
type Options struct {
	// Queue is the shared controller, whose queue is read at each scrape
	// (every chat's calls go through it); nil leaves the controller's
	// families out until Watch.
	Queue QueueSource
	// Ready says whether the server can serve a turn now (/readyz): the
	// controller answers and the skill catalog is loaded (EngineReady;
	// Watch sets it). nil: ready while not draining.
	Ready ReadyFunc
	// RefusalReasons are the reasons the server may refuse a connection
	// for (sshd.RefusalReasons): each is shown at 0 before the first, so
	// a rate is defined from the start.
	RefusalReasons []string
}

// QueueSource is what the controller's queue tells (*controller.Controller).
type QueueSource interface {
	QueueStats() controller.QueueStats
}

// Metrics are one server's metrics. It is a conversation.Observer (give it
// to the chat services as Options.Observer) and an sshd refusal observer
// (Refused); Handler serves it. Safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	chats         prometheus.Gauge
	turnsActive   prometheus.Gauge
	turns         *prometheus.CounterVec
	turnSeconds   prometheus.Histogram
	firstToken    prometheus.Histogram
	tokens        *prometheus.CounterVec
	expertCalls   *prometheus.CounterVec
	expertSeconds *prometheus.HistogramVec
	refused       *prometheus.CounterVec

	draining atomic.Bool
	ready    readiness
	watch    sync.Once
}

// New makes the metrics, registered on a registry of their own with the
// Go runtime's and the process's collectors.
func New(o Options) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.ready.set(o.Ready)
	m.chats = prometheus.NewGauge(prometheus.GaugeOpts{Name: "chorus_chats_active",
		Help: "Chats open now: ssh connections with a chat, MCP client sessions with a chat."})
	m.turnsActive = prometheus.NewGauge(prometheus.GaugeOpts{Name: "chorus_turns_active",
		Help: "Turns in flight now."})
	m.turns = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "chorus_turns_total",
		Help: "Turns that ended, by outcome: ok (answered), failed (ended without an answer), cancelled (by the user, or cut off by a stop)."},
		[]string{"outcome"})
	m.turnSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "chorus_turn_seconds",
		Help:    "How long turns took, from the request to the saved answer, queue waits included.",
		Buckets: []float64{0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600}})
	m.firstToken = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "chorus_first_token_seconds",
		Help:    "Time from a request to the first token of its answer: what a user waits before reading.",
		Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120}})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "chorus_controller_tokens_total",
		Help: "Controller tokens of the turns' calls, by stage and kind: prompt (the prompt's length), prefilled (the part the server evaluated, not from its cache), decoded (the reply)."},
		[]string{"stage", "kind"})
	m.expertCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "chorus_expert_calls_total",
		Help: "Expert calls (each try of a task on a model), by endpoint kind, provider (the Inference Provider behind huggingface, the configured server's name where the endpoint reports one, else none) and outcome."},
		[]string{"kind", "provider", "outcome"})
	m.expertSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "chorus_expert_seconds",
		Help:    "How long expert calls took, by endpoint kind and provider.",
		Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}},
		[]string{"kind", "provider"})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "chorus_ssh_refused_total",
		Help: "ssh connections turned away, by reason."},
		[]string{"reason"})
	draining := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "chorus_draining",
		Help: "1 while the server drains before a restart: no new connections or turns, the turns in flight finishing."},
		func() float64 {
			if m.draining.Load() {
				return 1
			}
			return 0
		})
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.chats, m.turnsActive, m.turns, m.turnSeconds, m.firstToken, m.tokens, m.expertCalls, m.expertSeconds, m.refused, draining)
	if o.Queue != nil {
		m.watch.Do(func() { m.reg.MustRegister(newQueueCollector(o.Queue)) })
	}
	// Counters a rate is taken of exist from the start, at 0.
	for _, out := range []string{OK, Failed, Cancelled} {
		m.turns.WithLabelValues(out)
	}
	for _, r := range o.RefusalReasons {
		m.refused.WithLabelValues(r)
	}
	return m
}

// Watch reads the engine's controller queue at each scrape and makes
// /readyz ask the engine (EngineReady), for metrics made before the engine
// (they observe the chat service built with it). Once: a second call does
// nothing.
func (m *Metrics) Watch(eng *pipeline.Engine) {
	m.watch.Do(func() {
		m.reg.MustRegister(newQueueCollector(eng.Controller()))
		m.ready.set(EngineReady(eng))
	})
}

// Registry is the metrics' registry, to gather from or add to.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves /metrics (Prometheus's text format, or OpenMetrics when
// asked), /healthz (the process is up) and /readyz (it can serve a turn
// now; 503 with the reason when not, and while draining).
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, EnableOpenMetrics: true}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", m.readyz)
	return mux
}

// Refused counts an ssh connection turned away for reason (one of
// sshd.RefusalReasons).
func (m *Metrics) Refused(reason string) { m.refused.WithLabelValues(cleanLabel(reason)).Inc() }

// Drain marks the server draining: /readyz answers 503 so a load balancer
// sends no one new, and chorus_draining is 1.
func (m *Metrics) Drain() { m.draining.Store(true) }

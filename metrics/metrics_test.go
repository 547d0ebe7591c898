package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/internal/scrape"
	"github.com/chorusai/chorus/metrics"
	"github.com/chorusai/chorus/pipeline"
)

// queueSource is a controller queue's stats as a test sets them.
type queueSource struct{ st controller.QueueStats }

func (q *queueSource) QueueStats() controller.QueueStats { return q.st }

// TestMetricsFromTurns: the families come from what the chat service tells
// the observer — a chat, a turn's first token, its expert calls (each try,
// with its endpoint kind, provider and outcome), its end and its
// controller calls' tokens — the queue's stats at the scrape, and the
// refusals; the Go runtime and process collectors are there. No label
// carries anything but a kind's name.
func TestMetricsFromTurns(t *testing.T) {
	q := &queueSource{st: controller.QueueStats{Slots: 4, Busy: 4, Waiting: 3, WaitCount: 5, WaitSum: 1500 * time.Millisecond,
		Waits: make([]uint64, len(controller.WaitBounds()))}}
	for i := range q.st.Waits {
		q.st.Waits[i] = 5
	}
	m := metrics.New(metrics.Options{Queue: q, RefusalReasons: []string{"unknown_key", "handshake_timeout"}})
	ts := httptest.NewServer(m.Handler())
	defer ts.Close()
	before := get(t, ts.URL)
	for _, series := range []string{`chorus_turns_total{outcome="ok"}`, `chorus_turns_total{outcome="failed"}`, `chorus_turns_total{outcome="cancelled"}`,
		`chorus_ssh_refused_total{reason="unknown_key"}`, "chorus_chats_active", "go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := before[series]; !ok {
			t.Errorf("%s is not there before anything happened", series)
		}
	}

	m.ChatOpened()
	m.ChatOpened()
	m.ChatClosed()
	turn := m.TurnStarted()
	mid := get(t, ts.URL)
	if mid["chorus_chats_active"] != 1 || mid["chorus_turns_active"] != 1 {
		t.Fatalf("mid-turn: %v chats, %v turns", mid["chorus_chats_active"], mid["chorus_turns_active"])
	}
	turn.Event(pipeline.TokenEvent{Text: "Hi"})
	turn.Event(pipeline.TokenEvent{Text: " there"})
	turn.Event(pipeline.TaskEndEvent{ID: 0, Task: "text-to-image", Status: pipeline.StatusOK, Attempts: []pipeline.Attempt{
		{Model: "a", Endpoint: "huggingface", Provider: "replicate", Error: "404", ElapsedMS: 200},
		{Model: "a", Endpoint: "huggingface", Provider: "fal-ai", ElapsedMS: 1500},
	}})
	turn.Event(pipeline.TaskEndEvent{ID: 1, Task: "summarization", Status: pipeline.StatusError, Cancelled: true, Attempts: []pipeline.Attempt{
		{Model: "/home/alice/secret model", Endpoint: "openai", Provider: "Bad Provider /etc/passwd", Error: "context canceled", ElapsedMS: 50},
	}})
	// A program on this machine (a declared one, or a preset) is counted
	// under its kind; its name is a model's, not a label.
	turn.Event(pipeline.TaskEndEvent{ID: 2, Task: "automatic-speech-recognition", Status: pipeline.StatusOK, Attempts: []pipeline.Attempt{
		{Model: "pocketsphinx", Endpoint: "command", ElapsedMS: 900},
	}})
	turn.Ended(conversation.Result{Ran: true, Report: &pipeline.Report{Answer: "Hi there", Calls: []pipeline.ControllerCall{
		{Stage: pipeline.StagePlanning, PromptTokens: 1400, Prefilled: 200, Tokens: 60},
		{Stage: pipeline.StageResponse, PromptTokens: 1600, Prefilled: 150, Tokens: 90},
	}}})
	failed := m.TurnStarted()
	failed.Ended(conversation.Result{Err: errors.New("the controller is not reachable")})
	cancelled := m.TurnStarted()
	cancelled.Ended(conversation.Result{Ran: true, Err: pipeline.ErrCancelled})
	m.Refused("unknown_key")
	m.Refused("handshake_timeout")
	m.Refused("handshake_timeout")

	after := get(t, ts.URL)
	want := map[string]float64{
		"chorus_chats_active":                                                                 1,
		"chorus_turns_active":                                                                 0,
		`chorus_turns_total{outcome="ok"}`:                                                    1,
		`chorus_turns_total{outcome="failed"}`:                                                1,
		`chorus_turns_total{outcome="cancelled"}`:                                             1,
		"chorus_turn_seconds_count":                                                           3,
		"chorus_first_token_seconds_count":                                                    1, // one per turn, its first token
		`chorus_controller_tokens_total{kind="prompt",stage="planning"}`:                      1400,
		`chorus_controller_tokens_total{kind="prefilled",stage="planning"}`:                   200,
		`chorus_controller_tokens_total{kind="decoded",stage="response"}`:                     90,
		`chorus_expert_calls_total{kind="huggingface",outcome="failed",provider="replicate"}`: 1,
		`chorus_expert_calls_total{kind="huggingface",outcome="ok",provider="fal-ai"}`:        1,
		`chorus_expert_calls_total{kind="openai",outcome="cancelled",provider="other"}`:       1,
		`chorus_expert_calls_total{kind="command",outcome="ok",provider="none"}`:              1,
		`chorus_expert_seconds_count{kind="huggingface",provider="fal-ai"}`:                   1,
		`chorus_expert_seconds_sum{kind="huggingface",provider="fal-ai"}`:                     1.5,
		`chorus_ssh_refused_total{reason="unknown_key"}`:                                      1,
		`chorus_ssh_refused_total{reason="handshake_timeout"}`:                                2,
		"chorus_controller_queue_depth":                                                       3,
		"chorus_controller_slots_busy":                                                        4,
		"chorus_controller_slots":                                                             4,
		"chorus_controller_wait_seconds_count":                                                5,
		"chorus_controller_wait_seconds_sum":                                                  1.5,
		"chorus_draining":                                                                     0,
	}
	for k, v := range want {
		if got, ok := after[k]; !ok || got != v {
			t.Errorf("%s = %v (there: %v), want %v", k, got, ok, v)
		}
	}
	for k := range after {
		if strings.Contains(k, "alice") || strings.Contains(k, "passwd") || strings.Contains(k, "secret") {
			t.Errorf("a label carries what it must not: %s", k)
		}
	}
}

func get(t *testing.T, url string) scrape.Samples {
	t.Helper()
	s, err := scrape.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHealth: /healthz says the process is up; /readyz asks the check —
// at most once per two seconds, however many probes come — and says why
// not ready; while draining it answers 503 without asking.
func TestHealth(t *testing.T) {
	var calls atomic.Int32
	var failing atomic.Bool
	m := metrics.New(metrics.Options{Ready: func(context.Context) error {
		calls.Add(1)
		if failing.Load() {
			return errors.New("the controller: Ollama is not reachable at http://127.0.0.1:11434 — start it with `ollama serve`")
		}
		return nil
	}})
	ts := httptest.NewServer(m.Handler())
	defer ts.Close()
	probe := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := probe("/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	for range 3 {
		if code, body := probe("/readyz"); code != 200 || body != "ok\n" {
			t.Fatalf("/readyz: %d %q", code, body)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("three probes asked the controller %d times", calls.Load())
	}

	failing.Store(true)
	n := metrics.New(metrics.Options{Ready: func(context.Context) error {
		return errors.New("the skill catalog is not loaded")
	}})
	ts2 := httptest.NewServer(n.Handler())
	defer ts2.Close()
	resp, err := http.Get(ts2.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(b), "the skill catalog is not loaded") {
		t.Fatalf("/readyz not ready: %d %q", resp.StatusCode, b)
	}

	m.Drain()
	asked := calls.Load()
	if code, body := probe("/readyz"); code != 503 || !strings.Contains(body, "draining") {
		t.Fatalf("/readyz while draining: %d %q", code, body)
	}
	if calls.Load() != asked {
		t.Fatal("a draining server asked the controller")
	}
	if code, _ := probe("/healthz"); code != 200 {
		t.Fatal("/healthz while draining must still say the process is up")
	}
	if s := get(t, ts.URL); s["chorus_draining"] != 1 {
		t.Fatalf("chorus_draining = %v", s["chorus_draining"])
	}
}

// TestCheckAddr: the metrics never share the server's port.
func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		metrics, server string
		ok              bool
	}{
		{"127.0.0.1:9464", ":2222", true},
		{":2222", ":2222", false},
		{"0.0.0.0:2222", "127.0.0.1:2222", false},
		{"127.0.0.1:0", "127.0.0.1:0", true},
		{"9464", ":2222", false},
	} {
		err := metrics.CheckAddr(tc.metrics, tc.server, "the ssh port")
		if (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, %q) = %v", tc.metrics, tc.server, err)
		}
	}
	if err := metrics.CheckAddr(":2222", ":2222", "the ssh port"); !strings.Contains(err.Error(), "the ssh port") || !strings.Contains(err.Error(), "9464") {
		t.Fatalf("the refusal does not name the fix: %v", err)
	}
}

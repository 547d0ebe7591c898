package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// BenchmarkTUIFirstTurn opens the chat, leaves it idle as a user typing
// their first request would, then sends a request and times the turn
// against a fake Ollama with BenchmarkTurn's latency models — with and
// without the prompt head warmed while the chat was idle. It reports the
// tokens the first planning call prefilled (as the fake server's prefix
// cache counts them), the turn's wall time and its time to the first
// answer token.
//
//	go test ./ui -run '^$' -bench TUIFirstTurn
func BenchmarkTUIFirstTurn(b *testing.B) {
	// A local model on a GPU: 200 ms to the first token, 20 ms per
	// token, 50 ms per 1,000 tokens of prefill.
	gpu := fakeollama.Latency{FirstToken: 200 * time.Millisecond, PerToken: 20 * time.Millisecond, PerKPrefill: 50 * time.Millisecond,
		Serial: true, PrefixCache: true}
	// An 8B model on a laptop CPU, 100 tokens/s of prefill, every delay
	// divided by ten (as BenchmarkTurn's cpu profile): 0.5 s here is 5 s
	// of a real user's idle time.
	cpu := fakeollama.Latency{FirstToken: 20 * time.Millisecond, PerToken: 5 * time.Millisecond, PerKPrefill: time.Second,
		Serial: true, PrefixCache: true}
	for _, c := range []struct {
		name string
		lat  fakeollama.Latency
		idle time.Duration
		warm bool
	}{
		{"gpu/idle-5s/cold", gpu, 5 * time.Second, false},
		{"gpu/idle-5s/warmed", gpu, 5 * time.Second, true},
		{"cpu/idle-5s/cold", cpu, 500 * time.Millisecond, false},
		{"cpu/idle-5s/warmed", cpu, 500 * time.Millisecond, true},
		{"cpu/idle-20s/warmed", cpu, 2 * time.Second, true},
	} {
		b.Run(c.name, func(b *testing.B) { benchFirstTurn(b, c.lat, c.idle, c.warm) })
	}
}

func benchFirstTurn(b *testing.B, lat fakeollama.Latency, idle time.Duration, warm bool) {
	var wall, ttft time.Duration
	var prefilled int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		env := newTestEnv(b)
		env.ollama.SetLatency(lat)
		// The default hybrid mode with a token: the head lists every
		// skill that can run, as a real first turn's does.
		hf := fakehf.New(b)
		hf.RequireToken("hf_bench")
		cat, err := skills.Embedded()
		if err != nil {
			b.Fatal(err)
		}
		router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
			huggingface.New(huggingface.Options{BaseURL: hf.URL, Token: "hf_bench", HTTPClient: hf.Client()}))
		env.eng = pipeline.New(env.eng.Controller(), cat, router, pipeline.Options{OutputDir: env.out, ControllerTasks: true})
		env.cfg.InferenceMode, env.cfg.HuggingFace.Token = "hybrid", "hf_bench"
		env.script.plan = `{"constraints":{},"tasks":[]}`
		env.script.answer = strings.TrimSpace(strings.Repeat("A quiet street with trees and a red bicycle. ", 6))
		opts := env.options(b)
		warmer := &conversation.Warmer{}
		opts.Service, err = conversation.New(conversation.Options{Engine: env.eng, Dir: filepath.Join(b.TempDir(), "sessions"), Warmer: warmer})
		if err != nil {
			b.Fatal(err)
		}
		opts.Warm, opts.WarmOnOpen = warm, warm
		var m *Model
		m, err = New(opts)
		if err != nil {
			b.Fatal(err)
		}
		p := &probe{Model: m}
		tm := teatest.NewTestModel(b, p, teatest.WithInitialTermSize(100, 30))
		time.Sleep(idle) // the user types their first request
		before := len(env.ollama.Prefills())
		firstToken := p.when(func(m *Model) bool { return len(m.turns) == 1 && m.turns[0].Answer != "" })
		done := p.when(turnsDone(1))
		b.StartTimer()
		start := time.Now()
		tm.Type("what can you do?")
		tm.Send(keyEnter)
		select {
		case <-firstToken:
		case <-time.After(guard):
			b.Fatal("no answer token")
		}
		ttft += time.Since(start)
		select {
		case <-done:
		case <-time.After(guard):
			b.Fatal("the turn did not end")
		}
		wall += time.Since(start)
		b.StopTimer()
		calls := env.ollama.Prefills()[before:]
		if len(calls) == 0 {
			b.Fatal("no controller call")
		}
		prefilled += calls[0].Evaluated // the planning call
		_ = tm.Quit()
		tm.WaitFinished(b, teatest.WithFinalTimeout(guard))
		warmer.Wait()
	}
	n := float64(b.N)
	b.ReportMetric(float64(prefilled)/n, "plan-prefill-tok/turn")
	b.ReportMetric(float64(wall.Milliseconds())/n, "wall-ms/turn")
	b.ReportMetric(float64(ttft.Milliseconds())/n, "ttft-ms/turn")
}

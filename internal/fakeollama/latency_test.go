package fakeollama

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func chatOnce(t *testing.T, s *Server, msgs []api.Message) (api.Metrics, time.Duration) {
	t.Helper()
	start := time.Now()
	var final api.ChatResponse
	err := s.Client().Chat(context.Background(), &api.ChatRequest{Model: "m:1b", Messages: msgs}, func(r api.ChatResponse) error {
		if r.Done {
			final = r
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return final.Metrics, time.Since(start)
}

func TestLatencyPrefixCache(t *testing.T) {
	s := New(t)
	s.AddModel(Model{Name: "m:1b"})
	s.OnChat(func(*api.ChatRequest) Reply { return Reply{Content: "ok"} })
	s.SetLatency(Latency{PerKPrefill: 50 * time.Millisecond, PrefixCache: true})
	system := api.Message{Role: "system", Content: strings.Repeat("stable prefix ", 2000)}
	first, _ := chatOnce(t, s, []api.Message{system, {Role: "user", Content: "plan this"}})
	second, _ := chatOnce(t, s, []api.Message{system, {Role: "user", Content: "now answer that"}})
	// As in Ollama v0.11.4, the count is the whole prompt; the duration
	// is what was evaluated.
	if first.PromptEvalCount < 7000 || second.PromptEvalCount < 7000 {
		t.Fatalf("prompt_eval_count first %d, second %d: both should count the whole prompt", first.PromptEvalCount, second.PromptEvalCount)
	}
	if first.PromptEvalDuration < 300*time.Millisecond || second.PromptEvalDuration > 5*time.Millisecond {
		t.Fatalf("prompt_eval_duration first %v, second %v: the second should prefill only its tail", first.PromptEvalDuration, second.PromptEvalDuration)
	}
	other, _ := chatOnce(t, s, []api.Message{{Role: "system", Content: "different"}, system})
	if other.PromptEvalDuration < 300*time.Millisecond {
		t.Errorf("a changed first message must invalidate the cache: %v", other.PromptEvalDuration)
	}
}

func TestLatencySerial(t *testing.T) {
	s := New(t)
	s.AddModel(Model{Name: "m:1b"})
	s.OnChat(func(*api.ChatRequest) Reply { return Reply{Content: "ok"} })
	s.SetLatency(Latency{FirstToken: 100 * time.Millisecond, Serial: true})
	start := time.Now()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); chatOnce(t, s, []api.Message{{Role: "user", Content: "hi"}}) }()
	}
	wg.Wait()
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("three serial calls of 100 ms took %v", d)
	}
}

// A request cancelled while its prompt is evaluated leaves only what was
// evaluated in the cache: the next request with that prompt prefills the
// rest, not nothing and not everything.
func TestLatencyCancelledPrefillKeepsPart(t *testing.T) {
	s := New(t)
	s.AddModel(Model{Name: "m:1b"})
	s.OnChat(func(*api.ChatRequest) Reply { return Reply{Content: "ok"} })
	s.SetLatency(Latency{PerKPrefill: 200 * time.Millisecond, PrefixCache: true})
	msgs := []api.Message{{Role: "system", Content: strings.Repeat("stable prefix ", 2000)}, {Role: "user", Content: "plan this"}}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond) // about half of 1.4 s of prefill
	defer cancel()
	err := s.Client().Chat(ctx, &api.ChatRequest{Model: "m:1b", Messages: msgs}, func(api.ChatResponse) error { return nil })
	if err == nil {
		t.Fatal("the cancelled request finished")
	}
	s.WaitIdle()
	m, _ := chatOnce(t, s, msgs)
	full := time.Duration(PromptTokens(RenderPrompt(&api.ChatRequest{Messages: msgs}))) * 200 * time.Millisecond / 1000
	if m.PromptEvalDuration < full/5 || m.PromptEvalDuration > full*4/5 {
		t.Fatalf("after a cancel at about half the prefill, the next call evaluated %v of %v", m.PromptEvalDuration, full)
	}
}

// Two slots serve two chats at once and a third waits; each slot keeps its
// own cache, and a chat takes the slot that holds its prefix.
func TestLatencySlots(t *testing.T) {
	s := New(t)
	s.AddModel(Model{Name: "m:1b"})
	s.OnChat(func(*api.ChatRequest) Reply { return Reply{Content: "ok"} })
	s.SetLatency(Latency{FirstToken: time.Second, Slots: 2, PerKPrefill: time.Second, PrefixCache: true})
	// Two chats take the two slots; a third, sent while they hold them,
	// waits for one — observed through the server's slot counts, not a
	// clock, so a loaded machine cannot fail or pass it by timing.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); chatOnce(t, s, []api.Message{{Role: "user", Content: "hi"}}) }()
	}
	waitSlots(t, s, "both slots busy", func(u SlotUse) bool { return u.Busy == 2 })
	wg.Add(1)
	go func() { defer wg.Done(); chatOnce(t, s, []api.Message{{Role: "user", Content: "hi"}}) }()
	waitSlots(t, s, "the third chat queued", func(u SlotUse) bool { return u.Waiting == 1 })
	wg.Wait()
	if u := s.Slots(); u.Peak != 2 || u.Waited != 1 || u.Busy != 0 || u.Waiting != 0 {
		t.Fatalf("three chats on two slots: %+v, want a peak of 2 and one that waited", u)
	}
	a := []api.Message{{Role: "system", Content: strings.Repeat("head A ", 300)}, {Role: "user", Content: "1"}}
	b := []api.Message{{Role: "system", Content: strings.Repeat("head B ", 300)}, {Role: "user", Content: "1"}}
	// At once, so each takes a slot of its own.
	wg.Add(2)
	go func() { defer wg.Done(); chatOnce(t, s, a) }()
	go func() { defer wg.Done(); chatOnce(t, s, b) }()
	wg.Wait()
	// Each head stays in its own slot: asking with either again prefills
	// only the new tail.
	for _, m := range [][]api.Message{a, b} {
		m = append(m[:1:1], api.Message{Role: "user", Content: "2"})
		r, _ := chatOnce(t, s, m)
		if r.PromptEvalDuration > 50*time.Millisecond {
			t.Fatalf("a head cached in its slot was prefilled again: %v", r.PromptEvalDuration)
		}
	}
}

// waitSlots waits until the server's slot use satisfies cond.
func waitSlots(t *testing.T, s *Server, what string, cond func(SlotUse) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond(s.Slots()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s (%+v)", what, s.Slots())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

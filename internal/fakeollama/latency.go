package fakeollama

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Latency models how a real local Ollama spends time, for benchmarks: a
// prompt is prefilled at a cost per thousand tokens, the first token comes
// after a fixed delay, each further token costs a decode step, one request
// is served at a time (one loaded model, one slot), and the KV cache of the
// last prompt is kept, so a request that starts with the same tokens
// prefills only what follows the common prefix — as Ollama's runner does.
//
// Tokens are counted as four bytes of the rendered prompt, aligned from its
// start: crude, but the same for every client, and prefix-stable.
type Latency struct {
	// FirstToken is the delay before the first generated token.
	FirstToken time.Duration
	// PerToken is the delay between generated tokens.
	PerToken time.Duration
	// PerKPrefill is the cost of prefilling 1,000 prompt tokens.
	PerKPrefill time.Duration
	// Serial serves one chat at a time; the others queue.
	Serial bool
	// Slots serves that many chats at once (Ollama's OLLAMA_NUM_PARALLEL,
	// the fake's --llm-concurrency), the others queue; it overrides
	// Serial when above 1. Each slot keeps its own KV cache: a chat takes
	// the free slot whose last prompt shares the longest prefix with its
	// own, as Ollama's runner does. Decoding in one slot does not slow
	// another (a GPU's batched decode, idealised).
	Slots int
	// PrefixCache keeps the last prompt's tokens and prefills only the
	// part of a new prompt after the longest common prefix.
	PrefixCache bool
}

// latencyState is the server's simulated runner.
type latencyState struct {
	model Latency
	mu    sync.Mutex
	// free signals a slot freed (Slots); busy marks the slots in use.
	free chan struct{}
	busy []bool
	// last is the last prompt each slot evaluated, per model (one slot
	// when the chats are not bounded: the cache of the last one).
	last map[string][]string
	// calls, prompt and evaluated count chats, their prompt tokens and
	// the tokens really prefilled, for benchmarks; each has the same
	// per chat, in order.
	calls, prompt, evaluated int
	each                     []Prefilled
	// peak is the most slots ever busy at once; waiting counts the chats
	// queued for a slot now, waited those that ever queued.
	peak, waiting, waited int
}

// SlotUse is what the slots have seen, for tests that check the bound
// without timing it.
type SlotUse struct {
	// Busy is how many slots serve a chat now; Peak the most at once.
	Busy, Peak int
	// Waiting is how many chats wait for a slot now; Waited how many
	// ever had to.
	Waiting, Waited int
}

// Slots returns the slots' use so far (zero without a latency model or
// with unbounded chats).
func (s *Server) Slots() SlotUse {
	l := s.latencyModel()
	if l == nil {
		return SlotUse{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	busy := 0
	for _, b := range l.busy {
		if b {
			busy++
		}
	}
	return SlotUse{Busy: busy, Peak: l.peak, Waiting: l.waiting, Waited: l.waited}
}

// Prefilled is what one chat cost the latency model: its prompt's tokens
// and how many of them were evaluated (the rest came from the cache).
type Prefilled struct {
	Prompt, Evaluated int
}

// Prefills returns, per chat the latency model served, in order, its
// prompt tokens and the tokens evaluated.
func (s *Server) Prefills() []Prefilled {
	l := s.latencyModel()
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Prefilled(nil), l.each...)
}

// Prefill returns how many chats the latency model served, their prompt
// tokens, and how many of those were prefilled (not taken from the cache).
func (s *Server) Prefill() (calls, prompt, evaluated int) {
	l := s.latencyModel()
	if l == nil {
		return 0, 0, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls, l.prompt, l.evaluated
}

// SetLatency turns the latency model on (the zero Latency turns it off).
func (s *Server) SetLatency(l Latency) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l == (Latency{}) {
		s.latency = nil
		return
	}
	n := l.Slots
	if n <= 1 && l.Serial {
		n = 1
	}
	s.latency = &latencyState{model: l, last: map[string][]string{}, busy: make([]bool, max(n, 0)), free: make(chan struct{}, 1)}
}

func (s *Server) latencyModel() *latencyState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latency
}

// RenderPrompt is the text a chat request is prefilled as: each message in
// order under its role, images as fixed-size blocks — close enough to a
// chat template for prefix caching to behave as it does in Ollama, where a
// change in an early message invalidates everything after it.
func RenderPrompt(req *api.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "<|%s|>\n%s\n", m.Role, m.Content)
		for _, img := range m.Images {
			fmt.Fprintf(&b, "<|image %d bytes|>%s\n", len(img), strings.Repeat("#", 576*4))
		}
		b.WriteString("<|end|>\n")
	}
	return b.String()
}

// PromptTokens counts a rendered prompt's tokens as the latency model does.
func PromptTokens(prompt string) int { return (len(prompt) + 3) / 4 }

// prefill takes a slot (when they are bounded) — the free one whose cache
// shares the longest prefix with prompt —, waits out the prefill of what
// that cache does not hold, and returns the tokens evaluated (what the real
// server's prompt_eval_duration reflects) and a release function for the
// slot.
func (l *latencyState) prefill(ctx context.Context, model, prompt string) (evaluated int, release func(), err error) {
	slot, release, err := l.take(ctx, model, prompt)
	if err != nil {
		return 0, release, err
	}
	total := PromptTokens(prompt)
	evaluated = total
	common := 0
	l.mu.Lock()
	if l.model.PrefixCache {
		common = commonPrefix(l.last[model][slot], prompt) / 4 * 4
		evaluated = total - common/4
	}
	l.last[model][slot] = prompt
	l.calls++
	l.prompt += total
	l.evaluated += evaluated
	l.each = append(l.each, Prefilled{Prompt: total, Evaluated: evaluated})
	l.mu.Unlock()
	// The first chunk also waits one decode step (PerToken), as every
	// chunk does; the rest of the first-token delay is waited here.
	fill := time.Duration(evaluated) * l.model.PerKPrefill / 1000
	wait := fill + max(0, l.model.FirstToken-l.model.PerToken)
	start := time.Now()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return evaluated, release, nil
	case <-ctx.Done():
		// A request cancelled while its prompt was being evaluated leaves
		// the cache holding what was evaluated so far, as a runner does
		// batch by batch.
		if l.model.PrefixCache && fill > 0 {
			done := min(1, float64(time.Since(start))/float64(fill))
			keep := min(len(prompt), common+int(done*float64(evaluated))*4)
			l.mu.Lock()
			if l.last[model][slot] == prompt {
				l.last[model][slot] = prompt[:keep]
			}
			l.mu.Unlock()
		}
		release()
		return 0, func() {}, ctx.Err()
	}
}

// take waits for a free slot and takes the one whose cache shares the
// longest prefix with prompt (slot 0 when the chats are not bounded).
func (l *latencyState) take(ctx context.Context, model, prompt string) (slot int, release func(), err error) {
	queued := false
	defer func() {
		if queued {
			l.mu.Lock()
			l.waiting--
			l.mu.Unlock()
		}
	}()
	for {
		l.mu.Lock()
		if l.last[model] == nil {
			l.last[model] = make([]string, max(len(l.busy), 1))
		}
		if len(l.busy) == 0 {
			l.mu.Unlock()
			return 0, func() {}, nil
		}
		best := -1
		for i, b := range l.busy {
			if !b && (best < 0 || commonPrefix(l.last[model][i], prompt) > commonPrefix(l.last[model][best], prompt)) {
				best = i
			}
		}
		if best >= 0 {
			l.busy[best] = true
			busy := 0
			for _, b := range l.busy {
				if b {
					busy++
				}
			}
			l.peak = max(l.peak, busy)
			if slices.Contains(l.busy, false) {
				l.signal() // another waiter may take the next free slot
			}
			l.mu.Unlock()
			var once sync.Once
			return best, func() {
				once.Do(func() {
					l.mu.Lock()
					l.busy[best] = false
					l.mu.Unlock()
					l.signal()
				})
			}, nil
		}
		if !queued {
			queued = true
			l.waiting++
			l.waited++
		}
		l.mu.Unlock()
		select {
		case <-l.free:
		case <-ctx.Done():
			return 0, func() {}, ctx.Err()
		}
	}
}

// signal wakes one chat waiting for a slot; a signal already pending
// will do.
func (l *latencyState) signal() {
	select {
	case l.free <- struct{}{}:
	default:
	}
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// byteTokens cuts s into four-byte tokens (whole characters), the latency
// model's unit of decoding.
func byteTokens(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(4, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

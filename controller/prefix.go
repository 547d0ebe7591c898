package controller

import (
	"crypto/sha256"
	"sync"
)

// promptMemory remembers the last prompt sent to each model, as the bytes
// a chat template would lay out, to estimate what an Ollama runner still
// has in its KV cache: it keeps the last prompt and reuses the longest
// common prefix, so only what follows needs prefilling.
type promptMemory struct {
	mu   sync.Mutex
	last map[string][]byte
}

func newPromptMemory() *promptMemory { return &promptMemory{last: map[string][]byte{}} }

// remember records msgs as the latest prompt to model and returns the
// fraction (0 to 1) of it shared with the previous one from the start.
func (p *promptMemory) remember(model string, msgs []Message) float64 {
	cur := layout(msgs)
	p.mu.Lock()
	prev := p.last[model]
	p.last[model] = cur
	p.mu.Unlock()
	if len(cur) == 0 {
		return 0
	}
	n := 0
	for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
		n++
	}
	return float64(n) / float64(len(cur))
}

// layout lays messages out in order, role then content, with each image
// as its digest — the order a template gives them, which is what a prefix
// cache compares.
func layout(msgs []Message) []byte {
	var b []byte
	for _, m := range msgs {
		b = append(b, "\x00"+m.Role+"\x00"...)
		b = append(b, m.Content...)
		for _, img := range m.Images {
			sum := sha256.Sum256(img)
			b = append(b, "\x00img"...)
			b = append(b, sum[:]...)
		}
	}
	return b
}

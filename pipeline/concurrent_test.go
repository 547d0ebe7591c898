package pipeline_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestConcurrentTurnsShareAnEngine: turns of different chats (ssh
// connections) run on one Engine at the same time, each with its own
// scope, plan, results and answer — nothing of one leaks into the other.
// Run under -race, it also proves the shared state (the controller's
// caches, the availability cache, the endpoints) is guarded.
func TestConcurrentTurnsShareAnEngine(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	imgs := map[string]string{"alice": r.image("alice.png", 40, 30), "bob": r.image("bob.png", 60, 20)}
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/captioner-small", "image-to-text")
	who := func(text string) string {
		for name, img := range imgs {
			if strings.Contains(text, img) {
				return name
			}
		}
		return "?"
	}
	r.onChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		switch stage(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + imgs[who(last)] + `"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[]}`}
		}
		return fakeollama.Reply{Content: "the answer for " + who(last)}
	})
	var wg sync.WaitGroup
	results := map[string]string{}
	answers := map[string]string{}
	var mu sync.Mutex
	for name, img := range imgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := r.eng.Run(context.Background(), pipeline.Turn{Request: "describe " + img, OutputDir: t.TempDir()}, func(ev pipeline.Event) {
				if e, ok := ev.(pipeline.TaskEndEvent); ok {
					mu.Lock()
					results[name] = e.Result
					mu.Unlock()
				}
			})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			mu.Lock()
			answers[name] = rep.Answer
			mu.Unlock()
		}()
	}
	wg.Wait()
	for name, want := range map[string]string{"alice": "a 40x30 photo", "bob": "a 60x20 photo"} {
		if !strings.Contains(results[name], want) || !strings.HasPrefix(answers[name], "the answer for "+name) {
			t.Errorf("%s's turn: result %q, answer %q", name, results[name], answers[name])
		}
	}
}

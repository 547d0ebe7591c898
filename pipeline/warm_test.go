package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestWarmFillsThePromptCache: a warm-up sends the head (with the chat
// log) and one stage marker, with the plan's schema, generating one token;
// the next turn's planning call then prefills only its own tail.
func TestWarmFillsThePromptCache(t *testing.T) {
	t.Parallel()
	history := []pipeline.Message{{Role: "user", Content: "Hi! What can you do?"}, {Role: "assistant", Content: "Plan tasks for experts."}}
	// prefilled is Chorus's estimate, evaluated what the fake server's
	// prefix cache really evaluated for the planning call.
	plan := func(warm bool) (prefilled, evaluated int, calls []pipeline.ControllerCall) {
		r := newRig(t, withWire())
		r.ollama.SetLatency(fakeollama.Latency{PerKPrefill: time.Millisecond, PrefixCache: true})
		if warm {
			if _, err := r.eng.Warm(context.Background(), history); err != nil {
				t.Fatal(err)
			}
			req := r.chatRequests()[0]
			if np, _ := req.Options["num_predict"].(float64); np != 1 || len(req.Format) == 0 {
				t.Fatalf("warm-up: num_predict %v, format %q", req.Options["num_predict"], req.Format)
			}
			if last := req.Messages[len(req.Messages)-1].Content; strings.TrimSpace(last) != "STAGE: PLAN" || len(req.Messages) != 4 {
				t.Fatalf("warm-up messages: %d, last %q", len(req.Messages), last)
			}
		}
		_, _, before := r.ollama.Prefill()
		r.answer = fakeollama.Reply{Content: "Hello."}
		r.plans = []fakeollama.Reply{{Content: `{"constraints":{},"tasks":[]}`}}
		r.mu.Lock()
		r.planN = 0
		r.mu.Unlock()
		rep, err := r.run(context.Background(), pipeline.Turn{Request: "hello again", History: history})
		if err != nil {
			t.Fatal(err)
		}
		reqs := r.chatRequests()
		planReq := reqs[len(reqs)-2]
		_, _, after := r.ollama.Prefill()
		answer := fakeollama.PromptTokens(fakeollama.RenderPrompt(&reqs[len(reqs)-1])) - fakeollama.PromptTokens(fakeollama.RenderPrompt(&planReq))
		return rep.Calls[0].Prefilled, after - before - answer, rep.Calls
	}
	cold, coldEval, _ := plan(false)
	warm, warmEval, calls := plan(true)
	t.Logf("planning call prefilled %d tokens cold, %d after a warm-up (the fake server evaluated about %d and %d)", cold, warm, coldEval, warmEval)
	if cold < 500 || warm > 100 || warmEval > 100 {
		t.Fatalf("planning call prefilled %d tokens cold and %d warm (server: %d): the warm-up did not fill the cache", cold, warm, warmEval)
	}
	if len(calls) != 2 {
		t.Fatalf("the turn made %d controller calls: the warm-up is not one of the turn's", len(calls))
	}
}

// On a server with two slots the warm-up fills both (the two calls overlap
// while the head is prefilled, so each takes a slot): the pick asked on the
// second slot while the plan streams then prefills only its own tail, not
// the head again.
func TestWarmFillsBothSlots(t *testing.T) {
	t.Parallel()
	r := newRig(t, withWire(), withSlots(2))
	r.ollama.SetLatency(fakeollama.Latency{Slots: 2, PerKPrefill: 100 * time.Millisecond, PrefixCache: true})
	if _, err := r.eng.Warm(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(r.chatRequests()); n != 2 {
		t.Fatalf("%d warm-up calls, want one per slot", n)
	}
	img := r.image("dog.png", 40, 30)
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/voice", "text-to-speech")
	r.pick = func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: `{"picks":{"1":1}}`} }
	reply, plan := streamedPlan()
	r.plans = []fakeollama.Reply{reply}
	_, _, before := r.ollama.Prefill()
	done := make(chan error, 1)
	go func() {
		_, err := r.run(context.Background(), pipeline.Turn{Request: "caption " + img + " and read it aloud"})
		done <- err
	}()
	plan <- `{"tasks":[{"task":"image-to-text","args":{"image":"` + img + `"}}`
	waitFor(t, "the pick asked while the plan streams", func() bool { return r.calls("select") == 1 })
	plan <- `,{"task":"text-to-speech","args":{"text":"<resource>-1"}}]}`
	close(plan)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	head := fakeollama.PromptTokens(r.chatRequests()[0].Messages[0].Content)
	if _, _, after := r.ollama.Prefill(); after-before > head/2 {
		t.Fatalf("the turn prefilled %d tokens; the head alone is %d: a slot was cold", after-before, head)
	}
}

package conversation_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestChatWarmsAndTheRequestGoesFirst: Chat.Warm sends the head in the
// background; a request that comes while it is still being prefilled
// cancels it and runs at once.
func TestChatWarmsAndTheRequestGoesFirst(t *testing.T) {
	r := newRig(t)
	arrived := make(chan struct{}, 1)
	r.srv.OnChatContext(func(ctx context.Context, req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if strings.TrimSpace(last) == "STAGE: PLAN" {
			arrived <- struct{}{}
			<-ctx.Done() // a prefill that would take long
			return fakeollama.Reply{}
		}
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[]}`}
		}
		return fakeollama.Reply{Content: "Answer."}
	})
	chat := r.svc.Chat(conversation.ChatOptions{NoSave: true})
	chat.Warm()
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up never reached the controller")
	}
	done := make(chan conversation.Result, 1)
	go func() { done <- chat.Run(context.Background(), conversation.Request{Request: "hello"}, discard) }()
	select {
	case res := <-done:
		if res.Err != nil || res.Record.Answer == "" {
			t.Fatalf("turn: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request waited behind the warm-up")
	}
	r.srv.WaitIdle()
	var warmCancelled bool
	for _, q := range r.srv.Requests() {
		var req api.ChatRequest
		if q.Path != "/api/chat" || json.Unmarshal(q.Body, &req) != nil {
			continue
		}
		if strings.TrimSpace(req.Messages[len(req.Messages)-1].Content) == "STAGE: PLAN" {
			warmCancelled = q.Canceled
		}
	}
	if !warmCancelled {
		t.Fatal("the warm-up was not cancelled when the request came")
	}
	if err := chat.Close(time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestWarmerCompletes: an uninterrupted warm-up completes and counts.
func TestWarmerCompletes(t *testing.T) {
	r := newRig(t)
	var w conversation.Warmer
	w.Start(r.svc.Engine(), nil)
	w.Wait()
	if w.Warmed() != 1 {
		t.Fatalf("warmed = %d", w.Warmed())
	}
	req := r.srv.ChatRequests()[0]
	if len(req.Format) == 0 || req.Options["num_predict"] != float64(1) {
		t.Fatalf("warm-up request: format %q, options %v", req.Format, req.Options)
	}
}

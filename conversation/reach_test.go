package conversation_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// TestUnreachableRouter: a turn that finds the Hugging Face router down
// leaves the chat saying so (a front end's status shows it, not "HF token
// ✓"), from the moment the host_down event passes; a later turn that
// reaches the router clears it.
func TestUnreachableRouter(t *testing.T) {
	ollama := fakeollama.New(t)
	ollama.AddModel(fakeollama.Model{Name: "ctl"})
	ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: `{"tasks": [{"task": "text-to-image", "id": 1, "dep": [], "args": {"text": "a lighthouse"}}]}`}
		}
		return fakeollama.Reply{Content: `{"choices": [{"id": 1, "pick": 1, "reason": "r"}]}`}
	})
	hf := fakehf.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	// The router's address answers only when target says so.
	var target atomic.Value
	target.Store(dead)
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, target.Load().(string))
	}}}
	ctl, err := controller.New(ollama.URL, "ctl", controller.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, huggingface.New(huggingface.Options{BaseURL: "http://" + dead, Token: "hf_x", HTTPClient: client, MaxRetries: -1, MaxWait: -1}))
	eng := pipeline.New(ctl, cat, router, pipeline.Options{OutputDir: t.TempDir()})
	svc, err := conversation.New(conversation.Options{Engine: eng, Dir: filepath.Join(t.TempDir(), "sessions")})
	if err != nil {
		t.Fatal(err)
	}
	chat := svc.Chat(conversation.ChatOptions{NoSave: true})

	var during []conversation.Unreachable
	chat.Run(context.Background(), conversation.Request{Request: "paint a lighthouse"}, func(ev pipeline.Event) {
		if _, ok := ev.(pipeline.TaskEndEvent); ok {
			during = chat.Unreachable()
		}
	})
	got := chat.Unreachable()
	if len(got) != 1 || got[0].Endpoint != "huggingface" || got[0].Host != dead || got[0].Reason != "connection refused" {
		t.Fatalf("after the turn: %+v", got)
	}
	if len(during) != 1 {
		t.Errorf("while the turn ran, after host_down: %+v", during)
	}

	u, _ := url.Parse(hf.URL)
	target.Store(u.Host)
	chat.Run(context.Background(), conversation.Request{Request: "paint a lighthouse"}, func(pipeline.Event) {})
	if got := chat.Unreachable(); len(got) != 0 {
		t.Fatalf("the router answered the next turn, yet: %+v", got)
	}
}

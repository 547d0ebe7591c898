package controller_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakeollama"
)

// TestChatCleansWhatTheModelWrites: a model that leaks its template's
// special tokens and control characters, split anywhere across the
// stream's chunks, gets none of them to whoever reads the stream or the
// reply; its words arrive as it writes them.
func TestChatCleansWhatTheModelWrites(t *testing.T) {
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "ctl"})
	srv.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Chunks: []string{"A cat", "<|im_", "end|>\x1b[", "2J on a", " mat.\r", "\n[IN", "ST]\u202eDone", "</s", ">"}}
	})
	var streamed []string
	reply, err := newController(t, srv, "ctl", nil).Chat(context.Background(), controller.ChatCall{
		Messages: []controller.Message{{Role: "user", Content: "hi"}}, OnToken: func(s string) { streamed = append(streamed, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	const want = "A cat on a mat.\nDone"
	if reply.Content != want || strings.Join(streamed, "") != want {
		t.Fatalf("reply %q, streamed %q; want %q", reply.Content, streamed, want)
	}
	if len(streamed) < 3 || streamed[0] != "A cat" {
		t.Errorf("streamed %q: the words should arrive as they are written", streamed)
	}
}

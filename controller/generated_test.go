package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
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

// TestOpenAIChatCleansWhatTheModelWrites: the same over the
// OpenAI-compatible backend — streamed (tokens split anywhere) and as one
// whole chat.completion from a server that ignores stream: true.
func TestOpenAIChatCleansWhatTheModelWrites(t *testing.T) {
	chunks := []string{"A cat", "<|im_", "end|>\x1b[", "2J on a", " mat.\r", "\n[IN", "ST]\u202eDone", "</s", ">"}
	for _, unstreamed := range []bool{false, true} {
		t.Run(fmt.Sprint("unstreamed=", unstreamed), func(t *testing.T) {
			srv := fakeopenai.NewController(t, fakeopenai.VLLM, "qwen3-8b")
			srv.SetQuirks(fakeopenai.Quirks{Unstreamed: unstreamed})
			srv.OnChat(func(context.Context, *fakeopenai.ChatRequest) fakeopenai.ChatReply {
				return fakeopenai.ChatReply{Content: strings.Join(chunks, ""), Chunks: chunks}
			})
			var streamed []string
			reply, err := newOpenAI(t, srv.URL, "qwen3-8b", controller.Options{}).Chat(context.Background(), controller.ChatCall{
				Messages: []controller.Message{{Role: "user", Content: "hi"}}, OnToken: func(s string) { streamed = append(streamed, s) },
			})
			if err != nil {
				t.Fatal(err)
			}
			const want = "A cat on a mat.\nDone"
			if reply.Content != want || strings.Join(streamed, "") != want {
				t.Fatalf("reply %q, streamed %q; want %q", reply.Content, streamed, want)
			}
		})
	}
}

package mcpserve_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestServeQueuesClientsOnTheController: the MCP server's clients share the
// controller's queue (controller.max_concurrent) as the ssh chats do: with
// one slot, held by one client's plan, another client's call waits, is
// told so in its progress notifications, and runs when the slot frees.
func TestServeQueuesClientsOnTheController(t *testing.T) {
	ol := fakeollama.New(t)
	ol.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	holding, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ol.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) && strings.Contains(last, "first client") {
			once.Do(func() { close(holding) })
			<-release
		}
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Content: "Answered."}
	})
	srv := serve(t, ol, controller.Options{MaxConcurrent: 1})
	first := dial(t, srv, nil)
	waiting := make(chan string, 16)
	second := dial(t, srv, func(r *sdk.ProgressNotificationClientRequest) {
		if strings.HasPrefix(r.Params.Message, "waiting for the controller") {
			select {
			case waiting <- r.Params.Message:
			default:
			}
		}
	})

	ctx := context.Background()
	errs := make(chan error, 2)
	call := func(cs *sdk.ClientSession, request, token string) {
		params := &sdk.CallToolParams{Name: "chorus", Arguments: map[string]any{"request": request}}
		params.SetProgressToken(token)
		res, err := cs.CallTool(ctx, params)
		if err == nil && (res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Answered.")) {
			err = &callError{res}
		}
		errs <- err
	}
	go call(first, "a question from the first client", "a")
	select {
	case <-holding:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("the first client's plan never reached the controller")
	}
	go call(second, "a question from the second client", "b")
	select {
	case msg := <-waiting:
		if msg != "waiting for the controller — next in line" {
			t.Errorf("the waiting client was told %q", msg)
		}
	case <-time.After(30 * time.Second):
		t.Error("the second client was never told it waits for the controller")
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

type callError struct{ res *sdk.CallToolResult }

func (e *callError) Error() string {
	var b strings.Builder
	for _, c := range e.res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return "the call failed: " + b.String()
}

package mcpserve_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/mcpserve"
	"github.com/chorusai/chorus/pipeline"
)

// TestBigCallsWaitThenAre503: over HTTP, at most MaxBigCalls calls with a
// body over BigBody are in flight; one more waits for BigWait and then gets
// 503 with Retry-After, saying why, while a small call is served at once;
// once the big call ends, the next big one is served.
func TestBigCallsWaitThenAre503(t *testing.T) {
	t.Parallel()
	ol := fakeollama.New(t)
	ol.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	holding, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ol.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) && strings.Contains(last, "the slow one") {
			once.Do(func() { close(holding) })
			<-release
		}
		return fakeollama.Reply{Content: `{"tasks": []}`}
	})
	srv := serveWith(t, ol, controller.Options{}, mcpserve.Options{MaxBigCalls: 1, BigBody: 50_000, BigWait: 300 * time.Millisecond})
	hs := httptest.NewServer(srv.HTTPHandler(mcpserve.HTTPOptions{}))
	t.Cleanup(hs.Close)
	url := hs.URL + "/mcp"
	data := make([]byte, 60_000)
	_, _ = rand.Read(data)
	big := func(request string) map[string]any {
		return map[string]any{"request": request, "files": []any{map[string]any{"name": "a.bin", "data": base64.StdEncoding.EncodeToString(data)}}}
	}
	session := func() *sdk.ClientSession {
		cs, err := dialHTTP(t, url, &http.Client{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	first, second, small := session(), session(), session()
	// The held call ends however the test does (the servers' cleanups
	// wait for it).
	var released sync.Once
	free := func() { released.Do(func() { close(release) }) }
	t.Cleanup(free)
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := first.CallTool(ctx, &sdk.CallToolParams{Name: "chorus_plan", Arguments: big("plan the slow one")})
		done <- err
	}()
	<-holding
	start := time.Now()
	_, err := second.CallTool(ctx, &sdk.CallToolParams{Name: "chorus_plan", Arguments: big("plan another")})
	if err == nil || !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("a second big call while one is in flight: %v, want 503", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("refused after %s, without waiting for the first to end", waited)
	}
	if res, err := small.CallTool(ctx, &sdk.CallToolParams{Name: "chorus_plan", Arguments: map[string]any{"request": "plan a small one"}}); err != nil || res.IsError {
		t.Fatalf("a small call waited or failed: %v %+v", err, res)
	}
	free()
	if err := <-done; err != nil {
		t.Fatalf("the first big call: %v", err)
	}
	if res, err := session().CallTool(ctx, &sdk.CallToolParams{Name: "chorus_plan", Arguments: big("plan another")}); err != nil || res.IsError {
		t.Fatalf("a big call once none is in flight: %v %+v", err, res)
	}
}

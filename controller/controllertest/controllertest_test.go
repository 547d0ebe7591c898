package controllertest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/controller/controllertest"
)

// TestScriptedReplies: the scripted controller streams a reply as the
// Controller reads a server's — in chunks, cut at the call's token limit
// with "length", its failures and stalls as a server's — and records the
// calls; a model it does not serve, or images to one that cannot see,
// are refused as a server refuses them.
func TestScriptedReplies(t *testing.T) {
	t.Parallel()
	b := controllertest.New()
	b.AddModel("ctl")
	b.AddModel("eyes", "completion", "vision")
	boom := errors.New("the runner crashed")
	b.OnChat(func(_ context.Context, req controller.ChatRequest) controllertest.Reply {
		switch last := req.Messages[len(req.Messages)-1].Content; last {
		case "long":
			return controllertest.Reply{Content: strings.Repeat("word ", 50)}
		case "fail":
			return controllertest.Reply{Content: "half", Err: boom}
		case "stall":
			return controllertest.Reply{Content: "never ends", Stall: true}
		}
		return controllertest.Reply{Content: "Hello there, you."}
	})
	ctx := context.Background()
	ctl := b.Controller("ctl", controller.Options{})
	call := func(c *controller.Controller, ctx context.Context, msg string, limit int, images ...[]byte) (controller.Reply, error) {
		return c.Chat(ctx, controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: msg, Images: images}}, NumPredict: limit})
	}
	if got, err := call(ctl, ctx, "hi", 0); err != nil || got.Content != "Hello there, you." || got.DoneReason != "stop" || got.EvalCount != 3 {
		t.Errorf("a reply: %+v, %v", got, err)
	}
	if got, err := call(ctl, ctx, "long", 8); err != nil || !got.Truncated() || len(strings.Fields(got.Content)) != 8 {
		t.Errorf("a reply past the limit: %+v, %v; want it cut at 8 words", got, err)
	}
	if _, err := call(ctl, ctx, "fail", 0); !errors.Is(err, boom) {
		t.Errorf("a failure mid-reply: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := call(ctl, short, "stall", 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a stall: %v, want the call's context to end it", err)
	}
	if _, err := call(b.Controller("gone", controller.Options{}), ctx, "hi", 0); !errors.Is(err, controller.ErrModelMissing) {
		t.Errorf("a model it does not serve: %v", err)
	}
	if _, err := call(ctl, ctx, "look", 0, []byte("png")); err == nil {
		t.Error("images to a model without vision were taken")
	}
	if _, err := call(b.Controller("eyes", controller.Options{}), ctx, "look", 0, []byte("png")); err != nil {
		t.Errorf("images to a vision model: %v", err)
	}
	if n := len(b.Requests()); n != 7 {
		t.Errorf("%d calls recorded, want 7", n)
	}
}

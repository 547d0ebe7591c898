package selection_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/controller/controllertest"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/selection"
	"github.com/chorusai/chorus/skills"
)

// TestAskReadsRepliesLeniently: the one selection call's reply chooses
// whatever form the controller wrote it in — the schema's picks with or
// without their reasons (cut off mid-reason), a model id instead of a
// number, the old list of choices, HuggingGPT's one-task {"id": model}
// form, a reply cut off mid-reason — and a pick out of range, a model that
// is not a candidate or a reply that cannot be read keeps the top-ranked
// candidate, saying so. Every task is published once, whatever the reply.
func TestAskReadsRepliesLeniently(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply, model, decided string
	}{
		{"picks then reasons", `{"picks":{"1":2},"reasons":{"1":"small"}}`, "test/captioner-small", "controller choice"},
		{"picks, reasons cut off", `{"picks":{"1":2},"reasons":{"1":"sm`, "test/captioner-small", "controller choice"},
		{"a pick by model id", `{"picks":{"1":"test/captioner-small"}}`, "test/captioner-small", "controller choice"},
		{"a pick out of range", `{"picks":{"1":7},"reasons":{"1":"?"}}`, "test/captioner-big", "fallback: top-ranked"},
		{"by number", `{"choices":[{"id":1,"pick":2,"reason":"small"}]}`, "test/captioner-small", "controller choice"},
		{"by model id", `{"choices":[{"id":1,"model":"test/captioner-small","reason":"small"}]}`, "test/captioner-small", "controller choice"},
		{"HuggingGPT form", `{"id": "test/captioner-small", "reason": "small"}`, "test/captioner-small", "controller choice"},
		{"cut off", `{"choices":[{"id":1,"model":"test/captioner-small","reason":"because it is sm`, "test/captioner-small", "controller choice"},
		{"out of range", `{"choices":[{"id":1,"pick":7,"reason":"?"}]}`, "test/captioner-big", "fallback: top-ranked"},
		{"not a candidate", `{"choices":[{"id":1,"model":"evil/model","reason":"?"}]}`, "test/captioner-big", "fallback: top-ranked"},
		{"garbage", `no idea`, "test/captioner-big", "fallback: top-ranked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctl := controllertest.New()
			ctl.AddModel("ctl")
			ctl.OnChat(func(context.Context, controller.ChatRequest) controllertest.Reply {
				return controllertest.Reply{Content: tc.reply}
			})
			sel := &selection.Selector{Controller: ctl.Controller("ctl", controller.Options{}), NumCandidates: 5}
			hf := endpointstest.NewProbe(skills.EndpointHuggingFace)
			c := &flow.Choice{Task: flow.Task{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "/tmp/a.png"}}, Ranked: []*flow.Option{
				{Model: skills.Model{ID: "test/captioner-big"}, Routes: []endpoints.Endpoint{hf}},
				{Model: skills.Model{ID: "test/captioner-small"}, Routes: []endpoints.Endpoint{hf}},
			}}
			var mu sync.Mutex
			published := 0
			script := flow.NewTranscript("head", nil)
			sel.Ask(context.Background(), []*flow.Choice{c}, script, "caption /tmp/a.png", func(flow.Event) {}, func(*flow.Choice) {
				mu.Lock()
				published++
				mu.Unlock()
			})
			if c.Ranked[0].Model.ID != tc.model || c.Decided != tc.decided || c.Reason == "" {
				t.Fatalf("%s (%s: %s), want %s by %s, with a reason", c.Ranked[0].Model.ID, c.Decided, c.Reason, tc.model, tc.decided)
			}
			if tc.decided != "controller choice" && !strings.Contains(c.Reason, "top-ranked") {
				t.Errorf("the fallback does not say why: %q", c.Reason)
			}
			if published != 1 {
				t.Errorf("the task was published %d times", published)
			}
			if n := len(ctl.Requests()); n != 1 {
				t.Errorf("%d selection calls, want 1", n)
			}
		})
	}
}

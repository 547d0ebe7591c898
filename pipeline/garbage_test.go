package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// garbage is what a broken or random-weight controller writes into a
// field: control characters, escape sequences, a bidi override and its
// template's special tokens.
const garbage = "\x1b[2J\x07<|im_start|>\u202e\x00<|endoftext|>[INST]</s>"

// leaks returns what of s must never reach an output: control characters
// but newline and tab, bidi overrides, special tokens.
func leaks(s string) []string {
	var out []string
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			out = append(out, strings.ToValidUTF8(string(r), "?"))
		}
	}
	for _, tok := range []string{"<|", "|>", "[INST]", "</s>", "<s>"} {
		if strings.Contains(s, tok) {
			out = append(out, tok)
		}
	}
	return out
}

// stringsIn calls fn with every string v holds once marshalled: field
// values and map keys alike.
func stringsIn(v any, fn func(string)) {
	b, err := json.Marshal(v)
	if err != nil {
		fn("unmarshalable: " + err.Error())
		return
	}
	var walk func(any)
	walk = func(x any) {
		switch y := x.(type) {
		case string:
			fn(y)
		case []any:
			for _, e := range y {
				walk(e)
			}
		case map[string]any:
			for k, e := range y {
				fn(k)
				walk(e)
			}
		}
	}
	var g any
	_ = json.Unmarshal(b, &g)
	walk(g)
}

// TestControllerGarbageIsCleaned: a controller that writes garbage into
// every field it writes — the constraints (licences, size, benchmark,
// tasks), the task's name, id, argument names and values, the pick's
// reason and the answer — gets none of it into an event or the report:
// what is garbage around a real value is cleaned off ("apache-2.0" and a
// path still work), and a licence or benchmark that no model can have is
// ignored, said once in a note starting "ignored: ".
func TestControllerGarbageIsCleaned(t *testing.T) {
	t.Parallel()
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Selection: pipeline.SelectController}))
	img := r.image("cat.png", 20, 20)
	r.hf.Model("test/captioner-big", "image-to-text")
	r.hf.Model("test/captioner-small", "image-to-text")
	g, _ := json.Marshal(garbage)
	q := string(g[1 : len(g)-1]) // garbage inside a JSON string
	r.plans = []fakeollama.Reply{{Content: `{"constraints":{"licenses":["apache-2.0` + q + `","MIT","8ۯ'k춊y` + q + `"],` +
		`"max_size":"5GB` + q + `","prefer":"best","benchmark":"8ۯ'k춊y` + q + `","tasks":["image-to-text` + q + `","tele` + q + `port"]},` +
		`"tasks":[{"task":"image-to-text` + q + `","id":"1` + q + `","dep":[],"args":{"image` + q + `":"` + img + q + `","we` + q + `ird":"x` + q + `"}}]}`}}
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"picks":{"1":2},"reasons":{"1":"sm` + q + `all"}}`}
	}
	r.answer = fakeollama.Reply{Content: "It is " + garbage + "a cat." + garbage}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "caption the picture"})
	if err != nil {
		t.Fatal(err)
	}
	r.evMu.Lock()
	events := append([]pipeline.Event(nil), r.events...)
	r.evMu.Unlock()
	for _, ev := range append(events, pipeline.ReportEvent{Report: *rep}) {
		stringsIn(ev, func(s string) {
			if l := leaks(s); len(l) > 0 {
				t.Errorf("%s event carries %q in %q", ev.Type(), l, s)
			}
		})
	}
	if got := rep.Constraints.Licenses; len(got) != 2 || got[0] != "apache-2.0" || got[1] != "mit" {
		t.Errorf("licences %q, want apache-2.0 and mit, cleaned", got)
	}
	if rep.Constraints.Prefer != "" || rep.Constraints.MaxSize.String() != "5GB" || len(rep.Constraints.Tasks) != 1 {
		t.Errorf("constraints %+v: want the invented benchmark and task dropped, the size kept", rep.Constraints)
	}
	for _, want := range []string{"ignored: licence \"8ۯ'k춊y\"", "ignored: best \"8ۯ'k춊y\"", "ignored: constraint task \"teleport\""} {
		n := 0
		for _, note := range rep.Notes {
			if strings.HasPrefix(note, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("notes %q: want one starting %q", rep.Notes, want)
		}
	}
	if len(rep.Tasks) != 1 || rep.Tasks[0].Status != pipeline.StatusOK || rep.Tasks[0].Model != "test/captioner-small" || rep.Tasks[0].Reason != "small" {
		t.Fatalf("tasks %+v: want the task run on the controller's pick, with its reason cleaned", rep.Tasks)
	}
	if !strings.HasPrefix(rep.Answer, "It is a cat.\n") {
		t.Errorf("answer %q", rep.Answer)
	}
}

package pipeline_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/internal/ollamatest"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// rawTally counts, in what a real server streams, what must not reach an
// output: special tokens and control characters.
type rawTally struct {
	mu                sync.Mutex
	bytes, specials   int
	controls, replies int
}

// tee is a proxy in front of the real server that reads every streamed
// chat reply as it passes and tallies it, changing nothing.
func (rt *rawTally) tee(t *testing.T, host string) string {
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.URL.Path != "/api/chat" {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		rt.mu.Lock()
		defer rt.mu.Unlock()
		rt.replies++
		for sc.Scan() {
			var chunk struct{ Message struct{ Content string } }
			if json.Unmarshal(sc.Bytes(), &chunk) != nil {
				continue
			}
			c := chunk.Message.Content
			rt.bytes += len(c)
			for _, tok := range []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"} {
				rt.specials += strings.Count(c, tok)
			}
			for _, r := range c {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
					rt.controls++
				}
			}
		}
		return err
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRealOllamaGarbageNeverShows runs turns of a chat on a real Ollama
// whose controller is the tiny random-weight model, which writes control
// bytes and its vocabulary's special tokens (<|im_start|>…) into plans,
// picks and answers: none of it reaches an event or the report (what the
// panes, the log, --json and the saved session are made of).
func TestRealOllamaGarbageNeverShows(t *testing.T) {
	t.Parallel()
	host := ollamatest.Shared(t) // one server for the package: nothing here depends on its cache or slots
	var raw rawTally
	ctl, err := controller.New(raw.tee(t, host), ollamatest.Model, controller.Options{Timeout: 3 * time.Minute, NumCtx: 4096,
		PlanTokens: 128, AnswerTokens: 128, Temperature: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	// The test catalog: a short prompt head, so that the tiny model's
	// byte-sized tokens do not make each call a long prefill.
	cat, err := skills.Load("testdata/skills")
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal, builtin.New()),
		pipeline.Options{OutputDir: t.TempDir(), ControllerTasks: true, Selection: pipeline.SelectController, TaskTimeout: time.Minute})
	var history []pipeline.Message
	for _, request := range []string{"use only apache-2.0 models, the best on common voice, to read 'good morning' aloud",
		"and now summarize it in German"} {
		start := time.Now()
		var events []pipeline.Event
		rep, err := eng.Run(context.Background(), pipeline.Turn{Request: request, History: history}, func(ev pipeline.Event) { events = append(events, ev) })
		if err != nil {
			t.Logf("%q: %v", request, err) // a one-line error is a fine end for random weights
		}
		if rep != nil {
			events = append(events, pipeline.ReportEvent{Report: *rep})
			history = append(history, pipeline.Message{Role: "user", Content: request}, pipeline.Message{Role: "assistant", Content: rep.Answer})
		}
		t.Logf("%q: %d events in %s", request, len(events), time.Since(start).Round(time.Millisecond))
		for _, ev := range events {
			stringsIn(ev, func(s string) {
				if l := leaks(s); len(l) > 0 {
					t.Errorf("%q: a %s event carries %q in %.200q", request, ev.Type(), l, s)
				}
			})
		}
	}
	raw.mu.Lock()
	defer raw.mu.Unlock()
	t.Logf("the model streamed %d replies, %d bytes: %d special tokens and %d control characters", raw.replies, raw.bytes, raw.specials, raw.controls)
	if raw.specials+raw.controls == 0 {
		t.Fatal("the tiny model wrote no garbage at all: this test proves nothing — raise the temperature or the token limits")
	}
}

package controller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/controller/controllertest"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
)

func newController(t *testing.T, srv *fakeollama.Server, model string, log *slog.Logger) *controller.Controller {
	t.Helper()
	ctl, err := controller.New(srv.URL, model, controller.Options{Timeout: 10 * time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return ctl
}

func TestNewRejectsANonURL(t *testing.T) {
	if _, err := controller.New("127.0.0.1 11434", "m", controller.Options{}); err == nil {
		t.Fatal("a host that is not a URL was accepted")
	}
}

// TestCheckNamesTheFix: each state of the server gets a status whose error
// tells the user what to run.
func TestCheckNamesTheFix(t *testing.T) {
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "qwen3:8b", Capabilities: []string{fakeollama.CapCompletion, fakeollama.CapThinking}})
	ctl := newController(t, srv, "qwen3:8b", nil)

	st := ctl.Check(context.Background())
	if st.Err != nil || !st.Reachable || !st.Pulled || st.Version != fakeollama.Version || !slices.Contains(st.Capabilities, "thinking") {
		t.Fatalf("ready server: %+v", st)
	}

	st = ctl.WithModel("missing").Check(context.Background())
	want := "model missing is not pulled — run `ollama pull missing` or /pull missing"
	if !st.Reachable || st.Pulled || !errors.Is(st.Err, controller.ErrModelMissing) || st.Err.Error() != want {
		t.Fatalf("missing model: %+v", st)
	}
	if st.Version != fakeollama.Version { // the server answered: chorus doctor says which
		t.Errorf("missing model: the server's version %q, want %q", st.Version, fakeollama.Version)
	}

	srv.Stop()
	st = ctl.Check(context.Background())
	want = "Ollama is not reachable at " + srv.URL + " — start it with `ollama serve` (or set OLLAMA_HOST / controller.host)"
	if st.Reachable || !errors.Is(st.Err, controller.ErrUnreachable) || st.Err.Error() != want {
		t.Fatalf("stopped server: %+v", st)
	}
	var ce *controller.Error
	if !errors.As(st.Err, &ce) || ce.Host != srv.URL || ce.Model != "qwen3:8b" {
		t.Fatalf("the error does not carry host and model: %#v", st.Err)
	}
}

// TestModelsAreChorusTypes: the model list reaches callers with the
// details /model shows.
func TestModelsAreChorusTypes(t *testing.T) {
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "llava:7b", Family: "llama", ParameterSize: "7B", QuantizationLevel: "Q4_0", Size: 4_700_000_000})
	ms, err := newController(t, srv, "llava:7b", nil).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("models = %+v", ms)
	}
	m := ms[0]
	if m.Name != "llava:7b" || m.ParameterSize != "7B" || m.Family != "llama" || m.QuantizationLevel != "Q4_0" || m.Size != 4_700_000_000 || m.Digest == "" || m.Modified.IsZero() {
		t.Fatalf("model = %+v", m)
	}
}

// TestPullReportsProgress: a pull streams progress as PullProgress, and
// the pulled model is then listed.
func TestPullReportsProgress(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetPullable("tiny", fakeollama.Model{ParameterSize: "1B"})
	ctl := newController(t, srv, "tiny", nil)
	var got []controller.PullProgress
	if err := ctl.Pull(context.Background(), "tiny", func(p controller.PullProgress) { got = append(got, p) }); err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 || got[0].Status != "pulling manifest" || got[len(got)-1].Status != "success" {
		t.Fatalf("progress = %+v", got)
	}
	if !slices.ContainsFunc(got, func(p controller.PullProgress) bool {
		return p.Digest != "" && p.Total > 0 && p.Completed == p.Total
	}) {
		t.Fatalf("no layer progress with a digest and byte counts: %+v", got)
	}
	if st := ctl.Check(context.Background()); st.Err != nil || !st.Pulled {
		t.Fatalf("after the pull: %+v", st)
	}

	err := ctl.Pull(context.Background(), "nosuchmodel", nil)
	if err == nil || !strings.Contains(err.Error(), "file does not exist") || !strings.Contains(err.Error(), "nosuchmodel") {
		t.Fatalf("pulling an unknown model: %v", err)
	}
	// Ollama's words name a file; the fix is the model's name.
	if !strings.Contains(err.Error(), "no model nosuchmodel in the Ollama library") || !strings.Contains(err.Error(), "https://ollama.com/library") {
		t.Fatalf("pulling an unknown model does not say what to check: %v", err)
	}
}

// TestChatSendsImagesAndThinkFlag: images reach a vision model as the
// files' bytes, and think:false goes only to models that know the flag.
func TestChatSendsImagesAndThinkFlag(t *testing.T) {
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "seer", Capabilities: []string{fakeollama.CapCompletion, fakeollama.CapVision, fakeollama.CapThinking}})
	srv.AddModel(fakeollama.Model{Name: "plain"})
	srv.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: "a small red square"} })
	png := fakehf.PNG(8, 8)

	var streamed strings.Builder
	reply, err := newController(t, srv, "seer", nil).Chat(context.Background(), controller.ChatCall{
		Messages: []controller.Message{{Role: "system", Content: "describe"}, {Role: "user", Content: "what is it?", Images: [][]byte{png}}},
		OnToken:  func(s string) { streamed.WriteString(s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "a small red square" || streamed.String() != reply.Content || reply.DoneReason != "stop" || reply.EvalCount == 0 || reply.Truncated() {
		t.Fatalf("reply = %+v, streamed %q", reply, streamed.String())
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 || len(reqs[0].Messages) != 2 || len(reqs[0].Messages[1].Images) != 1 || !bytes.Equal(reqs[0].Messages[1].Images[0], png) {
		t.Fatalf("the image did not reach the server: %+v", reqs)
	}
	if reqs[0].Think == nil || reqs[0].Think.Value != false {
		t.Fatalf("a thinking model must be sent think:false, got %+v", reqs[0].Think)
	}

	if _, err := newController(t, srv, "plain", nil).Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.ChatRequests()
	if last := reqs[len(reqs)-1]; last.Think != nil || len(last.Messages[0].Images) != 0 {
		t.Fatalf("a model without thinking got the flag (or images appeared): %+v", last)
	}
}

// TestChatTruncatedAndSchema: the token bound and the schema reach the
// server, and a reply cut by the bound says so.
func TestChatTruncatedAndSchema(t *testing.T) {
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "ctl"})
	srv.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"tasks": [{"task": "ocr", "id": 1, "dep": [-1], "args": {"image": "a.png"}}]}`}
	})
	schema := json.RawMessage(`{"type":"object","properties":{"tasks":{"type":"array"}}}`)
	reply, err := newController(t, srv, "ctl", nil).Chat(context.Background(), controller.ChatCall{
		Messages: []controller.Message{{Role: "user", Content: "plan"}}, Format: schema, NumPredict: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reply.Truncated() || reply.EvalCount != 3 {
		t.Fatalf("reply = %+v, want cut off after 3 tokens", reply)
	}
	req := srv.ChatRequests()[0]
	if string(req.Format) != string(schema) || req.Options["num_predict"] != float64(3) {
		t.Fatalf("request = format %s, options %v", req.Format, req.Options)
	}
}

func TestChatWithUnpulledModelNamesTheFix(t *testing.T) {
	srv := fakeollama.New(t)
	_, err := newController(t, srv, "ghost:1b", nil).Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, controller.ErrModelMissing) || !strings.Contains(err.Error(), "ollama pull ghost:1b") {
		t.Fatalf("err = %v", err)
	}
}

// TestChatIsLoggedWithoutContent: a call leaves one record with what a
// maintainer needs (model, tokens, done reason, duration) and never the
// prompt or the reply, which may quote the user's files.
func TestChatIsLoggedWithoutContent(t *testing.T) {
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "ctl"})
	srv.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: "the secret reply", PromptEvalCount: 42}
	})
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctl := newController(t, srv, "ctl", log)
	if _, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "the private prompt"}}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "secret") || strings.Contains(buf.String(), "private") {
		t.Fatalf("the log holds content: %s", buf.String())
	}
	var rec map[string]any
	for line := range strings.Lines(buf.String()) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r["msg"] == "controller chat" {
			rec = r
		}
	}
	if rec == nil || rec["level"] != "INFO" || rec["model"] != "ctl" || rec["done_reason"] != "stop" || rec["tokens"] != float64(3) || rec["prompt_tokens"] != float64(42) || rec["elapsed"] == nil {
		t.Fatalf("record = %v (log %s)", rec, buf.String())
	}

	srv.Stop()
	buf.Reset()
	if _, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "x"}}}); err == nil {
		t.Fatal("a stopped server answered")
	}
	if !strings.Contains(buf.String(), `"level":"WARN"`) || !strings.Contains(buf.String(), "not reachable") {
		t.Fatalf("a failed call is not logged as a warning with its cause: %s", buf.String())
	}
}

// TestRepeatedCheckIsLoggedOnce: the TUI checks every few seconds while
// Ollama is missing; only a change of outcome is logged at info level.
func TestRepeatedCheckIsLoggedOnce(t *testing.T) {
	srv := fakeollama.New(t)
	var buf bytes.Buffer
	ctl := newController(t, srv, "ctl", slog.New(slog.NewTextHandler(&buf, nil)))
	for range 3 {
		ctl.Check(context.Background())
	}
	srv.AddModel(fakeollama.Model{Name: "ctl"})
	ctl.Check(context.Background())
	log := buf.String()
	if n := strings.Count(log, "msg=\"controller check\""); n != 2 {
		t.Fatalf("%d check records, want 2 (not pulled, then ready):\n%s", n, log)
	}
	if !strings.Contains(log, "level=WARN msg=\"controller check\"") || !strings.Contains(log, "level=INFO msg=\"controller check\"") {
		t.Fatalf("levels: %s", log)
	}
}

// TestAWebServerIsNotOllama: a web server that answers 404 at the host is
// named as not being Ollama, not as a model to pull.
func TestAWebServerIsNotOllama(t *testing.T) {
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	ctl, err := controller.New(web.URL, "qwen3:8b", controller.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st := ctl.Check(context.Background())
	if !errors.Is(st.Err, controller.ErrWrongServer) || errors.Is(st.Err, controller.ErrModelMissing) ||
		!strings.Contains(st.Err.Error(), "not as Ollama does") || !strings.Contains(st.Err.Error(), web.URL) {
		t.Fatalf("check = %+v (%v)", st, st.Err)
	}
	_, err = ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, controller.ErrWrongServer) {
		t.Fatalf("chat error = %v", err)
	}
}

// TestContextLength: the context the controller model was trained for,
// as the server reports it (chorus doctor shows it); 0 with no error from
// a server that does not say.
func TestContextLength(t *testing.T) {
	t.Parallel()
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ContextLength: 40960})
	ctl := newController(t, srv, "qwen3:8b", nil)
	if n, err := ctl.ContextLength(context.Background()); err != nil || n != 40960 {
		t.Fatalf("context length %d, %v; want 40960", n, err)
	}
	if _, err := ctl.WithModel("missing").ContextLength(context.Background()); !errors.Is(err, controller.ErrModelMissing) {
		t.Fatalf("a missing model: %v", err)
	}
	// An Ollama whose model_info names no context length (an imported
	// model's may not), and a backend that cannot say at all.
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/show" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"details":{"family":"llama"},"model_info":{"general.architecture":"llama","llama.block_count":32}}`))
	}))
	defer bare.Close()
	ctl, err := controller.New(bare.URL, "imported", controller.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ctl.ContextLength(context.Background()); err != nil || n != 0 {
		t.Errorf("no context length in model_info: %d, %v; want 0 and no error", n, err)
	}
	scripted := controllertest.New()
	scripted.AddModel("qwen3-8b")
	if n, err := scripted.Controller("qwen3-8b", controller.Options{}).ContextLength(context.Background()); err != nil || n != 0 {
		t.Errorf("a backend that does not say: %d, %v; want 0 and no error", n, err)
	}
}

// TestReplyTokensPerSecond: the generation speed the answer event and
// --json report is the server's count over its time, and 0 — not +Inf,
// which JSON cannot carry — when the server reports no time.
func TestReplyTokensPerSecond(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reply controller.Reply
		want  float64
	}{
		{controller.Reply{EvalCount: 50, EvalDuration: 2 * time.Second}, 25},
		{controller.Reply{EvalCount: 3, EvalDuration: 250 * time.Millisecond}, 12},
		{controller.Reply{EvalCount: 50}, 0},
		{controller.Reply{EvalCount: 50, EvalDuration: -time.Second}, 0},
		{controller.Reply{}, 0},
	} {
		if got := tc.reply.TokensPerSecond(); got != tc.want {
			t.Errorf("%d tokens in %v: %v tokens/s, want %v", tc.reply.EvalCount, tc.reply.EvalDuration, got, tc.want)
		}
	}
}

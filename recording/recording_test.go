package recording_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/skills"
)

const request = "draw a lighthouse at dusk and describe the picture"

// world is an engine wired to the fakes: a controller on a fake Ollama and
// the Hugging Face API on a fake, serving a two-task plan.
type world struct {
	ollama *fakeollama.Server
	hf     *fakehf.Server
	cat    *skills.Catalog
	eng    *pipeline.Engine
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{ollama: fakeollama.New(t), hf: fakehf.New(t)}
	w.ollama.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B", Capabilities: []string{fakeollama.CapCompletion}})
	w.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		switch pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) {
		case string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"tasks":[{"task":"text-to-image","id":1,"dep":[],"args":{"text":"a lighthouse at dusk"}},` +
				`{"task":"image-to-text","id":2,"dep":[1],"args":{"image":"<resource>-1"}}]}`}
		case string(pipeline.StageSelection):
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":2,"reason":"sharper pictures"},{"id":2,"pick":1,"reason":"the usual captioner"}]}`}
		}
		return fakeollama.Reply{Content: "I drew the lighthouse and described it: a tall tower against an orange sky.", ChunkDelay: time.Millisecond}
	})
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	w.cat = cat
	w.hf.RequireToken("hf_rec")
	for _, task := range []string{"text-to-image", "image-to-text"} {
		s, _ := cat.Skill(task)
		for _, m := range s.Models {
			if m.ServedBy(skills.EndpointHuggingFace) {
				w.hf.Model(m.ID, task)
			}
		}
	}
	ctl, err := controller.New(w.ollama.URL, "ctl", controller.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
		huggingface.New(huggingface.Options{BaseURL: w.hf.URL, Token: "hf_rec", MaxWait: -1, MaxRetries: -1, HTTPClient: w.hf.Client()}))
	w.eng = pipeline.New(ctl, cat, router, pipeline.Options{OutputDir: t.TempDir(), ControllerTasks: true, TaskTimeout: 20 * time.Second})
	return w
}

// outcome is what a person sees of a turn: the plan, the models, each
// task's result and files, and the controller's answer.
type outcome struct {
	plan    []string
	models  []string
	results []string
	files   []string // digests
	answer  string
}

func run(t *testing.T, eng *pipeline.Engine, req string) outcome {
	t.Helper()
	var (
		mu sync.Mutex
		o  outcome
	)
	rep, err := eng.Run(context.Background(), pipeline.Turn{Request: req}, func(ev pipeline.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case pipeline.PlanEvent:
			for _, tk := range ev.Tasks {
				o.plan = append(o.plan, tk.Task)
			}
		case pipeline.ModelEvent:
			o.models = append(o.models, ev.Task+" → "+ev.Model+" · "+ev.Endpoint+" ("+ev.Provider+") · "+ev.Reason)
		case pipeline.TaskEndEvent:
			o.results = append(o.results, ev.Status+" ("+ev.Provider+"): "+ev.Result)
			for _, f := range ev.Files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Errorf("result file: %v", err)
				}
				o.files = append(o.files, fmt.Sprintf("%d bytes %x", len(b), sha256.Sum256(b)))
			}
		case pipeline.AnswerEvent:
			// The workflow Chorus appends to the answer gives this run's
			// timings and paths; the controller's words must be the same.
			o.answer, _, _ = strings.Cut(ev.Text, "\n\n**Workflow**")
		}
	})
	if err != nil {
		t.Fatalf("turn: %v", err)
	}
	if !strings.HasPrefix(rep.Answer, o.answer) || o.answer == "" {
		t.Fatalf("report answer %q, answer event %q", rep.Answer, o.answer)
	}
	slices.Sort(o.models) // selection reports tasks as they are decided
	return o
}

func (o outcome) equal(p outcome) bool {
	return slices.Equal(o.plan, p.plan) && slices.Equal(o.models, p.models) && slices.Equal(o.results, p.results) &&
		slices.Equal(o.files, p.files) && o.answer == p.answer
}

// TestRecordThenReplay: a turn recorded against the fakes replays with the
// same plan, models, results, files and answer after both fakes are gone
// — a replay needs no model and no network.
func TestRecordThenReplay(t *testing.T) {
	w := newWorld(t)
	path := filepath.Join(t.TempDir(), "demo.json")
	rec := recording.NewRecorder(path, recording.Header{Chorus: "test"})
	eng := rec.Engine(w.eng)
	rec.BeginTurn(request, nil)
	recorded := run(t, eng, request)
	if len(recorded.plan) != 2 || len(recorded.files) != 1 || !strings.Contains(recorded.answer, "lighthouse") {
		t.Fatalf("the recorded turn did not run as scripted: %+v", recorded)
	}
	if !strings.Contains(strings.Join(recorded.models, "\n"), "sharper pictures") {
		t.Fatalf("the controller's pick was not used: %v", recorded.models)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	w.ollama.Stop()
	w.hf.Close()

	r, err := recording.Open(path, recording.Pace{Speed: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Turns) != 1 || r.Turns[0].Request != request || r.Model != "ctl" || r.Mode != "hybrid" {
		t.Fatalf("recording header: %+v", r.Recording)
	}
	cat, matched := r.ChooseCatalog(w.cat)
	if !matched {
		t.Fatal("the catalog the turn was recorded with does not match its digest")
	}
	replayEng, err := r.Engine(cat, pipeline.Options{OutputDir: t.TempDir(), TaskTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if st := replayEng.Controller().Check(context.Background()); st.Err != nil || !st.Pulled {
		t.Fatalf("a replay's controller is not ready: %+v", st)
	}
	replayed := run(t, replayEng, request)
	if !recorded.equal(replayed) {
		t.Fatalf("the replay differs from the recording:\nrecorded %+v\nreplayed %+v", recorded, replayed)
	}

	// A turn the recording does not hold says so and names the file.
	_, err = replayEng.Run(context.Background(), pipeline.Turn{Request: "and another"}, nil)
	if !errors.Is(err, controller.ErrNotRecorded) || !strings.Contains(err.Error(), path) {
		t.Fatalf("a turn past the recording: %v", err)
	}
}

// TestRecorderStopsRecording: Release gives back an engine whose calls are
// no longer copied.
func TestRecorderStopsRecording(t *testing.T) {
	w := newWorld(t)
	rec := recording.NewRecorder(filepath.Join(t.TempDir(), "r.json"), recording.Header{})
	eng := rec.Engine(w.eng)
	rec.BeginTurn(request, nil)
	run(t, eng, request)
	n := len(rec.Recording().Traffic.Calls)
	calls := len(rec.Recording().Experts.Calls)
	plain := rec.Release(eng.WithController(eng.Controller().WithModel("ctl")))
	run(t, plain, request)
	if got := rec.Recording(); len(got.Traffic.Calls) != n || len(got.Experts.Calls) != calls || n == 0 || calls == 0 {
		t.Fatalf("after Release: %d controller calls (was %d), %d expert calls (was %d)", len(got.Traffic.Calls), n, len(got.Experts.Calls), calls)
	}
}

// TestReplaySpeed: every recorded wait — the reply's chunks, the expert's
// progress and run time — is divided by the speed.
func TestReplaySpeed(t *testing.T) {
	var (
		mu    sync.Mutex
		waits []time.Duration
	)
	pace := recording.Pace{Speed: 4, Sleep: func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}}
	rec := &recording.Recording{Format: recording.Format, Model: "ctl", Mode: "hybrid",
		Traffic: controller.Traffic{Calls: []controller.Exchange{{Model: "ctl", Key: "hi", Chunks: []controller.Chunk{
			{After: 400 * time.Millisecond, Content: "Hel"}, {After: 600 * time.Millisecond, Content: "lo"}, {After: 1000 * time.Millisecond, Done: true, DoneReason: "stop"}}}}},
		Experts: recording.Experts{Kinds: []skills.EndpointKind{skills.EndpointHuggingFace}, Calls: []recording.Call{{Kind: skills.EndpointHuggingFace, Task: "text-to-speech", Model: "m",
			Progress: []recording.Progress{{After: 2 * time.Second, Message: "loading", Wait: 8 * time.Second}}, Elapsed: 6 * time.Second,
			Result: &recording.Result{Text: "done"}}}}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := rec.Save(path); err != nil {
		t.Fatal(err)
	}
	r, err := recording.Open(path, pace)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := r.Controller(controller.Options{}).Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}}})
	if err != nil || reply.Content != "Hello" {
		t.Fatalf("reply %q, %v", reply.Content, err)
	}
	router, err := r.Router()
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := router.Endpoint(skills.EndpointHuggingFace)
	var progress []endpoints.Progress
	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "m", Progress: func(p endpoints.Progress) { progress = append(progress, p) }})
	if err != nil || res.Text != "done" {
		t.Fatalf("expert: %+v, %v", res, err)
	}
	want := []time.Duration{100 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond, time.Second}
	if !slices.Equal(waits, want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	if len(progress) != 1 || progress[0].Wait != 2*time.Second {
		t.Fatalf("progress %+v: its announced wait is scaled too", progress)
	}
	if (recording.Pace{Speed: 0}).Scale(time.Hour) != 0 {
		t.Fatal("speed 0 must not wait")
	}
}

// TestLoadRefusesOtherFiles: a file that is not a recording, or one from a
// newer Chorus, is refused with a reason.
func TestLoadRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"notjson": "hello", "noformat": `{"turns": []}`, "newer": `{"format": 99}`} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := recording.Load(p); !errors.Is(err, recording.ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := recording.Load(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("missing file: %v", err)
	}
}

// TestReplaySkipsADownHost: a turn recorded while the router refused
// connections replays the same way — one call, the host marked down, the
// other candidates skipped — not a call the recording does not hold.
func TestReplaySkipsADownHost(t *testing.T) {
	w := newWorld(t)
	dead := deadAddr(t)
	ctl, err := controller.New(w.ollama.URL, "ctl", controller.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeHybrid, builtin.New(),
		huggingface.New(huggingface.Options{BaseURL: "http://" + dead, Token: "hf_rec", MaxWait: -1, MaxRetries: -1}))
	live := pipeline.New(ctl, w.cat, router, pipeline.Options{OutputDir: t.TempDir(), ControllerTasks: true, TaskTimeout: 20 * time.Second})
	path := filepath.Join(t.TempDir(), "down.json")
	rec := recording.NewRecorder(path, recording.Header{Chorus: "test"})
	rec.BeginTurn(request, nil)
	recorded := failures(t, rec.Engine(live))
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	r, err := recording.Open(path, recording.Pace{Speed: 0})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := r.ChooseCatalog(w.cat)
	replayEng, err := r.Engine(cat, pipeline.Options{OutputDir: t.TempDir(), TaskTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	replayed := failures(t, replayEng)
	if !strings.Contains(recorded, "host_down "+dead) || !strings.Contains(recorded, "skipped: unreachable this turn") || recorded != replayed {
		t.Fatalf("recorded:\n%s\nreplayed:\n%s", recorded, replayed)
	}
}

// failures runs the request and says what failed, and how: the host_down
// events and each task's attempts and error.
func failures(t *testing.T, eng *pipeline.Engine) string {
	t.Helper()
	var (
		mu  sync.Mutex
		out []string
	)
	if _, err := eng.Run(context.Background(), pipeline.Turn{Request: request}, func(ev pipeline.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case pipeline.HostDownEvent:
			out = append(out, "host_down "+ev.Host+" "+ev.Reason)
		case pipeline.TaskEndEvent:
			out = append(out, fmt.Sprintf("task %d: %d attempts: %s", ev.ID, len(ev.Attempts), ev.Error))
		}
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

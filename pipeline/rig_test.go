package pipeline_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/controller/controllertest"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// rig is a full Chorus engine wired to a scripted controller and a
// protocol-faithful Hugging Face inference API. The controller is
// controllertest's, answering in process, unless the test is of the wire
// (withWire): then a fake Ollama serves it over HTTP. Either way the
// test scripts it with fakeollama's Reply and reads its requests as
// Ollama's (chatRequests).
type rig struct {
	t *testing.T
	// ollama is the controller's server under withWire, nil otherwise;
	// script is the scripted controller otherwise.
	ollama *fakeollama.Server
	script *controllertest.Backend
	hf     *fakehf.Server
	eng    *pipeline.Engine
	out    string

	mu     sync.Mutex
	plans  []fakeollama.Reply // planning replies, used in order; the last repeats
	planN  int
	pick   func(req *api.ChatRequest) fakeollama.Reply
	answer fakeollama.Reply
	// answers, when set, are the answer replies used in order (the last
	// repeats) instead of answer: an early answer, then its continuation.
	answers []fakeollama.Reply
	answerN int
	// revisions are the revision replies, used in order (the last
	// repeats); none is an empty revision.
	revisions []fakeollama.Reply
	reviseN   int
	// override, when set (onChat), answers every call instead of the
	// replies above.
	override func(req *api.ChatRequest) fakeollama.Reply
	// taskReply, when set, is the controller's reply to a text task it
	// does itself (by default "controller output for the task").
	taskReply *fakeollama.Reply
	// requests are the controller requests of each stage, in order.
	requests map[string][]*api.ChatRequest
	// evMu guards events apart from mu: the fake Ollama's handlers run
	// under mu (a pick may wait there for a task to reach an endpoint), and
	// the engine's emit must never queue behind them — that would stall
	// every running task until the controller's reply is over.
	evMu    sync.Mutex
	events  []pipeline.Event
	stageOf map[string]int // how many controller calls per stage
	// given are the files the test made with image (and audio): they
	// stand for files the user named, so run types their paths into the
	// request unless the turn already attaches or names them. A turn may
	// read only what the user gave it (package scope).
	given []string
}

type rigOption func(*rigConfig)

type rigConfig struct {
	controllerCaps []string
	mode           endpoints.Mode
	token          string
	opts           pipeline.Options
	// extra endpoints join the router after the defaults and replace a
	// default of the same kind.
	extra []endpoints.Endpoint
	// hf adjusts the Hugging Face endpoint's options.
	hf func(*huggingface.Options)
	// hub: the endpoint asks the fake's Hub which providers serve a model,
	// and the engine looks up there a model the request names outside
	// the catalog (lookup, when set, instead).
	hub    bool
	lookup pipeline.HubLookup
	// skills join the catalog, replacing those of the same name.
	skills []*skills.Skill
	// slots is controller.max_concurrent.
	slots int
	// home is the engine's home folder (Options.Home): a folder of the
	// test's own unless withHome gives one, so no turn reads the
	// process's HOME.
	home string
	// wire serves the controller from a fake Ollama over HTTP.
	wire bool
}

func withControllerCaps(c ...string) rigOption {
	return func(rc *rigConfig) { rc.controllerCaps = c }
}

func withOptions(o pipeline.Options) rigOption { return func(rc *rigConfig) { rc.opts = o } }

func withHFOptions(f func(*huggingface.Options)) rigOption {
	return func(rc *rigConfig) { rc.hf = f }
}

// withHub makes the Hugging Face endpoint ask the fake Hub's provider
// mapping (fakehf.Server.Provide), as the real one asks the Hub, and the
// engine look up there the models a request names outside the catalog
// (fakehf.Server.Describe).
func withHub() rigOption { return func(rc *rigConfig) { rc.hub = true } }

// withLookup makes the engine look up the models a request names outside
// the catalog with l.
func withLookup(l pipeline.HubLookup) rigOption { return func(rc *rigConfig) { rc.lookup = l } }

func withSkills(s ...*skills.Skill) rigOption {
	return func(rc *rigConfig) { rc.skills = append(rc.skills, s...) }
}

// withWire serves the controller from a fake Ollama over HTTP (rig.ollama):
// for the tests of what crosses the wire — its latency and prompt cache,
// a server that goes away, streams as a server sends them.
func withWire() rigOption { return func(rc *rigConfig) { rc.wire = true } }

// withHome makes home the engine's home folder: "~" to the turn, and the
// HOME the tools it starts inherit (pipeline.Options.Home).
func withHome(home string) rigOption { return func(rc *rigConfig) { rc.home = home } }

// withSlots sets controller.max_concurrent: the controller server's slots.
func withSlots(n int) rigOption { return func(rc *rigConfig) { rc.slots = n } }

func withEndpoints(eps ...endpoints.Endpoint) rigOption {
	return func(rc *rigConfig) { rc.extra = append(rc.extra, eps...) }
}

func newRig(t *testing.T, opts ...rigOption) *rig {
	t.Helper()
	rc := rigConfig{controllerCaps: []string{fakeollama.CapCompletion}, mode: endpoints.ModeHybrid, token: "hf_test", opts: pipeline.Options{ControllerTasks: true}}
	for _, o := range opts {
		o(&rc)
	}
	r := &rig{t: t, hf: fakehf.New(t), out: t.TempDir(), stageOf: map[string]int{}}
	r.hf.RequireToken(rc.token)
	r.answer = fakeollama.Reply{Content: "Here is what I found."}
	ctlOpts := controller.Options{PlanTokens: 512, Timeout: 30 * time.Second, MaxConcurrent: rc.slots}
	var ctl *controller.Controller
	if rc.wire {
		r.ollama = fakeollama.New(t)
		r.ollama.AddModel(fakeollama.Model{Name: "ctl", Capabilities: rc.controllerCaps, ParameterSize: "8B"})
		r.ollama.OnChat(r.respond)
		var err error
		if ctl, err = controller.New(r.ollama.URL, "ctl", ctlOpts); err != nil {
			t.Fatal(err)
		}
	} else {
		r.script = controllertest.New()
		r.script.AddModel("ctl", rc.controllerCaps...)
		r.script.OnChat(func(_ context.Context, req controller.ChatRequest) controllertest.Reply {
			return scripted(t, r.respond(ollamaRequest(req)))
		})
		ctl = r.script.Controller("ctl", ctlOpts)
	}

	cat, err := skills.Load("testdata/skills")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rc.skills {
		cat.Put(s)
	}
	// A failing model is retried after a pause (1 s by default): the
	// pause is the endpoint's to test, and a few milliseconds here.
	hfOpts := huggingface.Options{BaseURL: r.hf.URL, Token: rc.token, MaxWait: 2 * time.Second, MaxRetries: 2, Backoff: 10 * time.Millisecond, HTTPClient: r.hf.Client()}
	if rc.hub {
		hfOpts.Hub = &skills.Hub{BaseURL: r.hf.Root, Token: rc.token, HTTPClient: r.hf.Client()}
	}
	if rc.hf != nil {
		rc.hf(&hfOpts)
	}
	router := endpoints.NewRouter(rc.mode, append([]endpoints.Endpoint{
		builtin.New(),
		huggingface.New(hfOpts),
	}, rc.extra...)...)
	o := rc.opts
	o.OutputDir = r.out
	switch {
	case rc.lookup != nil:
		o.Hub = rc.lookup
	case rc.hub:
		o.Hub = &skills.Hub{BaseURL: r.hf.Root, Token: rc.token, HTTPClient: r.hf.Client()}
	}
	if o.TaskTimeout == 0 {
		o.TaskTimeout = 20 * time.Second
	}
	// The turn's home and working folder are the test's own: nothing of
	// the process's (its HOME, the package's folder) is read.
	if o.Home == "" {
		o.Home = cmp.Or(rc.home, t.TempDir())
	}
	if o.WorkDir == "" {
		o.WorkDir = t.TempDir()
	}
	r.eng = pipeline.New(ctl, cat, router, o)
	return r
}

// ollamaRequest is req as the Ollama backend sends it (controller/ollama.go),
// as a fake Ollama decodes it: what the rig's script reads.
func ollamaRequest(req controller.ChatRequest) *api.ChatRequest {
	opts := map[string]any{"temperature": req.Temperature}
	if req.NumCtx > 0 {
		opts["num_ctx"] = float64(req.NumCtx)
	}
	if req.NumPredict > 0 {
		opts["num_predict"] = float64(req.NumPredict)
	}
	out := &api.ChatRequest{Model: req.Model, Format: req.Format, Options: opts}
	for _, m := range req.Messages {
		am := api.Message{Role: m.Role, Content: m.Content}
		for _, img := range m.Images {
			am.Images = append(am.Images, api.ImageData(img))
		}
		out.Messages = append(out.Messages, am)
	}
	if req.NoThink {
		out.Think = &api.ThinkValue{Value: false}
	}
	return out
}

// scripted is the scripted controller's reply for a fake Ollama's: what
// only a server can do (answer an HTTP status, ignore num_predict, send
// thinking or tool calls) needs withWire.
func scripted(t *testing.T, rep fakeollama.Reply) controllertest.Reply {
	if rep.Status != 0 || rep.IgnoreNumPredict || rep.StreamThinking || rep.Thinking != "" || len(rep.ToolCalls) > 0 {
		t.Errorf("the reply %+v is the wire's: the test needs withWire()", rep)
	}
	out := controllertest.Reply{Content: rep.Content, Chunks: rep.Chunks, Stream: rep.Stream, DoneReason: rep.DoneReason, ChunkDelay: rep.ChunkDelay,
		Stall: rep.Stall, PromptEvalCount: rep.PromptEvalCount}
	if rep.Error != "" {
		out.Err = errors.New(rep.Error)
	}
	return out
}

// chatRequests are the controller's calls so far, as Ollama's requests.
func (r *rig) chatRequests() []api.ChatRequest {
	if r.ollama != nil {
		return r.ollama.ChatRequests()
	}
	var out []api.ChatRequest
	for _, req := range r.script.Requests() {
		out = append(out, *ollamaRequest(req))
	}
	return out
}

// stage tells which pipeline stage a controller request belongs to, from
// the marker its last message starts with.
func stage(req *api.ChatRequest) string {
	if len(req.Messages) == 0 {
		return ""
	}
	switch pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) {
	case string(pipeline.StagePlanning):
		return "plan"
	case string(pipeline.StageSelection):
		return "select"
	case string(pipeline.StageResponse):
		return "respond"
	case string(pipeline.StageRevision):
		return "revise"
	}
	return "task"
}

func (r *rig) respond(req *api.ChatRequest) fakeollama.Reply {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := stage(req)
	r.stageOf[st]++
	if r.requests == nil {
		r.requests = map[string][]*api.ChatRequest{}
	}
	r.requests[st] = append(r.requests[st], req)
	if r.override != nil {
		return r.override(req)
	}
	switch st {
	case "revise":
		if len(r.revisions) == 0 {
			return fakeollama.Reply{Content: `{"constraints":{},"tasks":[]}`}
		}
		rep := r.revisions[min(r.reviseN, len(r.revisions)-1)]
		r.reviseN++
		return rep
	case "plan":
		if len(r.plans) == 0 {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		rep := r.plans[min(r.planN, len(r.plans)-1)]
		r.planN++
		return rep
	case "select":
		if r.pick != nil {
			return r.pick(req)
		}
		return fakeollama.Reply{Content: `{"choices": [{"id": 1, "model": "nobody", "reason": "?"}]}`}
	case "respond":
		if len(r.answers) > 0 {
			rep := r.answers[min(r.answerN, len(r.answers)-1)]
			r.answerN++
			return rep
		}
		return r.answer
	}
	if r.taskReply != nil {
		return *r.taskReply
	}
	return fakeollama.Reply{Content: "controller output for the task"}
}

// onChat makes fn answer every controller call.
func (r *rig) onChat(fn func(req *api.ChatRequest) fakeollama.Reply) {
	r.mu.Lock()
	r.override = fn
	r.mu.Unlock()
}

// close stops the rig's servers: a test that counts goroutines ends them
// first.
func (r *rig) close() {
	r.hf.Close()
	if r.ollama != nil {
		r.ollama.Close()
	}
}

// reset forgets the events and the plans of earlier turns, for a test that
// runs many turns on one rig.
func (r *rig) reset() {
	r.mu.Lock()
	r.plans, r.planN = nil, 0
	r.mu.Unlock()
	r.evMu.Lock()
	r.events = nil
	r.evMu.Unlock()
}

// planJSON sets the planner's reply to the given tasks.
func (r *rig) planJSON(tasks ...map[string]any) {
	b, _ := json.Marshal(map[string]any{"tasks": tasks})
	r.plans = []fakeollama.Reply{{Content: string(b)}}
}

func task(id int, name string, dep []int, args map[string]string) map[string]any {
	if dep == nil {
		dep = []int{}
	}
	return map[string]any{"task": name, "id": id, "dep": dep, "args": args}
}

func (r *rig) run(ctx context.Context, turn pipeline.Turn) (*pipeline.Report, error) {
	r.mu.Lock()
	for _, p := range r.given {
		if !strings.Contains(turn.Request, p) && !slices.Contains(turn.Attachments, p) {
			turn.Request += " " + p
		}
	}
	r.mu.Unlock()
	return r.eng.Run(ctx, turn, func(ev pipeline.Event) {
		r.evMu.Lock()
		r.events = append(r.events, ev)
		r.evMu.Unlock()
	})
}

func (r *rig) calls(stage string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stageOf[stage]
}

// eventsOf returns the recorded events of type T.
func eventsOf[T pipeline.Event](r *rig) []T {
	r.evMu.Lock()
	defer r.evMu.Unlock()
	var out []T
	for _, e := range r.events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func (r *rig) taskEnd(id int) pipeline.TaskEndEvent {
	r.t.Helper()
	for _, e := range eventsOf[pipeline.TaskEndEvent](r) {
		if e.ID == id {
			return e
		}
	}
	r.t.Fatalf("no task_end for task %d", id)
	return pipeline.TaskEndEvent{}
}

func (r *rig) model(id int) pipeline.ModelEvent {
	r.t.Helper()
	for _, e := range eventsOf[pipeline.ModelEvent](r) {
		if e.ID == id {
			return e
		}
	}
	r.t.Fatalf("no model event for task %d", id)
	return pipeline.ModelEvent{}
}

// image writes a PNG of the given size and returns its path.
func (r *rig) image(name string, w, h int) string {
	p := filepath.Join(r.t.TempDir(), name)
	if err := os.WriteFile(p, fakehf.PNG(w, h), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.given = append(r.given, p)
	r.mu.Unlock()
	return p
}

func (r *rig) typesInOrder() []string {
	r.evMu.Lock()
	defer r.evMu.Unlock()
	var out []string
	for _, e := range r.events {
		if _, ok := e.(pipeline.DebugEvent); ok {
			continue
		}
		out = append(out, e.Type())
	}
	return out
}

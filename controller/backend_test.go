package controller_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/controller"
)

// scripted is a backend of a kind Chorus does not ship: only the three
// calls of the contract, no pull, no version, no hints of its own.
type scripted struct {
	models []controller.ModelInfo
	down   bool
	got    []controller.ChatRequest
}

func (s *scripted) refused() error {
	if s.down {
		return &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	}
	return nil
}

func (s *scripted) Models(context.Context) ([]controller.ModelInfo, error) {
	return s.models, s.refused()
}

func (s *scripted) Capabilities(_ context.Context, model string) ([]string, error) {
	if err := s.refused(); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(s.models, func(m controller.ModelInfo) bool { return m.Name == model }) {
		return nil, &controller.StatusError{Code: 404, Message: "no such model", Kind: controller.ErrModelMissing}
	}
	return []string{"completion"}, nil
}

func (s *scripted) Chat(_ context.Context, req controller.ChatRequest, fn func(controller.ChatChunk)) error {
	if err := s.refused(); err != nil {
		return err
	}
	if req.Model != s.models[0].Name {
		return &controller.StatusError{Code: 404, Message: "model " + req.Model + " is gone", Kind: controller.ErrModelMissing}
	}
	s.got = append(s.got, req)
	fn(controller.ChatChunk{Content: `{"ok":`})
	fn(controller.ChatChunk{Content: `true}`})
	fn(controller.ChatChunk{Done: true, DoneReason: "stop", EvalCount: 2})
	return nil
}

// TestAnotherKindOfServerSpeaksNeutrally: a backend that is not Ollama
// plans through the same Controller, and its errors name the controller
// server and fixes that exist for it — never `ollama serve` or /pull.
func TestAnotherKindOfServerSpeaksNeutrally(t *testing.T) {
	b := &scripted{models: []controller.ModelInfo{{Name: "m1"}}}
	ctl := controller.NewWith(b, "http://10.0.0.9:8080/", "m1", controller.Options{})
	if ctl.Host() != "http://10.0.0.9:8080" || ctl.CanPull() || ctl.Hints().Tag != "server" {
		t.Fatalf("host %q, can pull %v, hints %+v", ctl.Host(), ctl.CanPull(), ctl.Hints())
	}
	st := ctl.Check(context.Background())
	if st.Err != nil || !st.Reachable || !st.Pulled || st.Version != "" {
		t.Fatalf("ready server: %+v", st)
	}
	var toks []string
	schema := json.RawMessage(`{"type":"object"}`)
	r, err := ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "hi"}},
		Format: schema, OnToken: func(s string) { toks = append(toks, s) }})
	if err != nil || r.Content != `{"ok":true}` || len(toks) != 2 || string(b.got[0].Format) != string(schema) || b.got[0].NoThink {
		t.Fatalf("chat: %+v %v, tokens %q, request %+v", r, err, toks, b.got)
	}

	st = ctl.WithModel("m2").Check(context.Background())
	want := "model m2 is not on the server — pick one it has with /model, or set controller.model"
	if !st.Reachable || st.Pulled || !errors.Is(st.Err, controller.ErrModelMissing) || st.Err.Error() != want {
		t.Fatalf("missing model: %+v (%v)", st, st.Err)
	}

	err = ctl.Pull(context.Background(), "m2", nil)
	if !errors.Is(err, controller.ErrCannotPull) || strings.Contains(err.Error(), "ollama") {
		t.Fatalf("pull on a server that cannot: %v", err)
	}

	b.down = true
	st = ctl.Check(context.Background())
	want = "The controller server is not reachable at http://10.0.0.9:8080 — start it, or set controller.host to where it listens"
	if st.Reachable || !errors.Is(st.Err, controller.ErrUnreachable) || st.Err.Error() != want {
		t.Fatalf("down: %+v (%v)", st, st.Err)
	}
}

// TestKinds: New opens every kind Kinds lists, Ollama by default, and
// names the known kinds for one it does not know.
func TestKinds(t *testing.T) {
	t.Parallel()
	if !slices.Equal(controller.Kinds(), []string{"ollama", "openai"}) || controller.DefaultKind != "ollama" {
		t.Fatalf("kinds = %v, default %q", controller.Kinds(), controller.DefaultKind)
	}
	ctl, err := controller.New("http://127.0.0.1:1", "m", controller.Options{})
	if err != nil || !ctl.CanPull() || ctl.Hints().Server != "Ollama" {
		t.Fatalf("default kind: %v, %+v", err, ctl)
	}
	for _, kind := range controller.Kinds() {
		if _, err := controller.New("http://127.0.0.1:1/v1", "m", controller.Options{Kind: kind}); err != nil {
			t.Errorf("kind %s is listed but does not open: %v", kind, err)
		}
	}
	_, err = controller.New("http://127.0.0.1:1", "m", controller.Options{Kind: "lmstudio"})
	if !errors.Is(err, controller.ErrUnknownKind) || err.Error() != `unknown controller kind "lmstudio" — use one of: ollama, openai` {
		t.Fatalf("unknown kind: %v", err)
	}
}

// TestARecordingKeepsTheClassification: a refusal the backend classified
// fails the same way when the recording is replayed.
func TestARecordingKeepsTheClassification(t *testing.T) {
	b := &scripted{models: []controller.ModelInfo{{Name: "m1"}}}
	rec := controller.NewWiretap()
	ctl := controller.NewWith(b, "http://10.0.0.9:8080", "m1", controller.Options{}).WithModel("gone").Tapped(rec)
	call := controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "STAGE: PLAN\nhi"}}}
	if _, err := ctl.Chat(context.Background(), call); !errors.Is(err, controller.ErrModelMissing) {
		t.Fatalf("live: %v", err)
	}
	tr := rec.Traffic()
	if len(tr.Calls) != 1 || tr.Calls[0].Err == nil || tr.Calls[0].Err.Kind != "model-missing" {
		t.Fatalf("recorded: %+v", tr.Calls)
	}
	_, err := controller.Replay(tr, controller.ReplayOptions{Source: "t.json"}).Chat(context.Background(), call)
	if !errors.Is(err, controller.ErrModelMissing) || !strings.Contains(err.Error(), "model gone is not on the server") {
		t.Fatalf("replayed: %v", err)
	}
}

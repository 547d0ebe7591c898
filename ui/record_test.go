package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
)

// TestRecordInTheChat: /record FILE records the next turns (the file is
// written after each), /record stop ends it, and the file replays the
// turn's answer with Ollama gone.
func TestRecordInTheChat(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "Recorded hello."
	tape := filepath.Join(t.TempDir(), "chat.json")
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("/record " + tape)
	s.wait("recording on", func(m *Model) bool { return m.recording() })
	if !strings.Contains(s.snapshot(), "● rec") {
		t.Fatalf("the status bar does not say it records:\n%s", s.snapshot())
	}
	s.submit("say hello")
	s.wait("the turn", turnsDone(1))
	s.submit("/record stop")
	s.wait("recording off", func(m *Model) bool { return !m.recording() && strings.Contains(chatText(m), "Recorded 1 turn(s)") })
	s.submit("and again")
	s.wait("an unrecorded turn", turnsDone(2))
	s.finish()

	rec, err := recording.Load(tape)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Turns) != 1 || rec.Turns[0].Request != "say hello" || len(rec.Traffic.Calls) != 2 {
		t.Fatalf("recorded %d turn(s), %d controller call(s): %+v", len(rec.Turns), len(rec.Traffic.Calls), rec.Turns)
	}
	env.ollama.Stop()
	r, err := recording.Open(tape, recording.Pace{})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := r.ChooseCatalog(env.eng.Catalog())
	eng, err := r.Engine(cat, pipeline.Options{OutputDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The chat on a replay says so: its intro, and ▶ replay for Ollama.
	opts := env.options(t)
	opts.Service, opts.Intro = testService(t, eng, t.TempDir()), "Replaying `chat.json`."
	rm, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rm.Update(rm.checkServer()())
	if f := frame(rm); !strings.Contains(f, "Replaying") || !strings.Contains(f, "chat.json") || !strings.Contains(f, "▶ replay") || strings.Contains(f, "HF token") {
		t.Fatalf("the replay's chat:\n%s", f)
	}
	rep, err := eng.Run(context.Background(), pipeline.Turn{Request: "say hello"}, nil)
	if err != nil || !strings.HasPrefix(rep.Answer, "Recorded hello.") {
		t.Fatalf("replayed: %v %v", rep, err)
	}
}

package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
	"github.com/chorusai/chorus/ui/turnview"
)

var (
	keyF6 = tea.KeyPressMsg{Code: tea.KeyF6}
	keyF7 = tea.KeyPressMsg{Code: tea.KeyF7}
)

// At 160×48 after a turn, f6 expands the Models pane in place: it takes the
// column's room, so every reason, the failed models and every excluded
// model are on screen — not two rows and a counter.
func TestGoldenExpandedModelsAfterAFallback(t *testing.T) {
	env := fallbackEnv(t)
	s := startSession(t, env.model(t), 160, 48)
	s.ready()
	s.submit("draw a lighthouse at dusk")
	s.wait("the turn", turnsDone(1))
	s.key(keyF6)
	s.wait("the details", func(m *Model) bool { return m.panes.expanded })
	m := s.finish()
	f := frame(m)
	for _, want := range []string{
		"ran black-forest-labs/FLUX.1-dev on huggingface",
		"✗ FLUX.1-schnell: not served by fal-ai (404), replicate",
		"✗ stable-diffusion-xl-base-1.0: hf-inference failed (500)",
		"selected black-forest-labs/FLUX.1-schnell",
		"f6 collapses the details",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("the expanded Models pane lacks %q:\n%s", want, f)
		}
	}
	if n := strings.Count(f, "✗ "); n < 6 {
		t.Errorf("%d ✗ lines on screen; want the 2 failed and the 4 excluded models:\n%s", n, f)
	}
	golden.RequireEqual(t, f)
}

// Where the panel gives way (a short terminal), the zoom key shows the
// panes full screen, every line reachable, the next_pane key switching
// between them.
func TestZoomShowsThePanesOnAShortTerminal(t *testing.T) {
	env := fallbackEnv(t)
	s := startSession(t, env.model(t), 80, 12)
	s.ready()
	s.submit("draw a lighthouse at dusk")
	s.wait("the turn", turnsDone(1))
	s.wait("no panel", func(m *Model) bool { return m.bottomPanelHeight() == 0 && !m.wide() })
	s.key(keyF7)
	s.wait("the pane view", func(m *Model) bool { return m.dialog != nil })
	f := s.snapshot()
	if !strings.Contains(f, "Execution") || !strings.Contains(f, "FLUX.1-schnell: not served") {
		t.Fatalf("the zoomed view does not show the Execution pane:\n%s", f)
	}
	s.key(keyF3)
	s.wait("the Plan", func(m *Model) bool { return strings.Contains(frame(m), "text=\"a lighthouse at dusk\"") })
	s.key(keyF3)
	s.key(keyF6)
	s.wait("the Models, expanded", func(m *Model) bool { return m.panes.expanded && strings.Contains(frame(m), "Models") })
	f = s.snapshot()
	if !strings.Contains(f, "ran black-forest-labs/FLUX.1-dev") {
		t.Fatalf("the zoomed Models pane is not expanded:\n%s", f)
	}
	// Scrolling reaches the end of it.
	for range 10 {
		s.key(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	s.wait("its last line", func(m *Model) bool { return strings.Contains(frame(m), "f6 collapses the details") })
	s.key(keyEsc)
	s.wait("the chat again", func(m *Model) bool { return m.dialog == nil })
	m := s.finish()
	if m.panes.tab != turnview.PaneModels {
		t.Errorf("the zoomed view's pane %v should stay the focused one", m.panes.tab)
	}
}

// fallbackTurnView is a finished turn with a fallback and excluded models,
// built from events, for views that need content.
func fallbackTurnView() *turnview.TurnState {
	tr := turnview.NewTurnState(1, "draw a lighthouse", nil, "qwen3:8b", fixedNow)
	for _, ev := range []pipeline.Event{
		pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-image", Args: map[string]string{"text": "a lighthouse"}}}},
		pipeline.ModelEvent{ID: 1, Task: "text-to-image", Model: "black-forest-labs/FLUX.1-schnell", Endpoint: "huggingface", Decided: "ranked", Reason: "the curated default",
			Excluded: []pipeline.Exclusion{{ID: "a/b", Reason: "needs a local inference server (set local.url)"}, {ID: "c/d", Reason: "needs a local inference server (set local.url)"}}},
		pipeline.TaskStartEvent{ID: 1, Task: "text-to-image", Model: "black-forest-labs/FLUX.1-schnell", Endpoint: "huggingface", Provider: "fal-ai"},
		pipeline.TaskProgressEvent{ID: 1, Message: "FLUX.1-schnell: not served by fal-ai (404), replicate (404) → FLUX.1-dev", Fallback: true},
		pipeline.TaskEndEvent{ID: 1, Task: "text-to-image", Status: pipeline.StatusOK, Model: "black-forest-labs/FLUX.1-dev", Endpoint: "huggingface", Provider: "hf-inference",
			Attempts: []pipeline.Attempt{{Model: "black-forest-labs/FLUX.1-schnell", Endpoint: "huggingface", Error: "x", Why: "not served by fal-ai (404), replicate (404)"},
				{Model: "black-forest-labs/FLUX.1-dev", Endpoint: "huggingface", Provider: "hf-inference"}}},
	} {
		tr.Apply(ev, fixedNow)
	}
	return tr
}

// /sessions searches what was said, not only titles: "light" finds the
// session where the user asked to draw a lighthouse.
func TestSessionsSearchFindsTurnText(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	st := sessions.Store{Dir: m.conv.Service().Dir()}
	old := st.New("")
	old.Title = "a picture for the blog"
	old.AddTurn(sessions.Record{Request: "draw a lighthouse at dusk", Answer: "Here it is."})
	if err := st.Save(old); err != nil {
		t.Fatal(err)
	}
	s := startSession(t, m, 100, 30)
	s.ready()
	s.submit("/sessions")
	s.wait("the list", func(m *Model) bool { return m.dialog != nil })
	s.typeText("light")
	s.wait("the match", func(m *Model) bool {
		f := frame(m)
		return strings.Contains(f, "› a picture for the blog") && strings.Contains(f, "draw a lighthouse")
	})
	s.finish()
}

// A very fast reply's rate reads like the other figures: "74k tok/s",
// not "74000.0 tok/s", in the status bar and the answer's label.
func TestRatesReadLikeOtherFigures(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("hi")
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	m.turns[0].TPS = 74000
	status := ansi.Strip(m.statusLine(fixedNow))
	if !strings.Contains(status, "74k tok/s") || strings.Contains(status, "74000") {
		t.Errorf("status bar: %q", status)
	}
	m.endTurn(m.turns[0])
	if meta := m.turns[0].entry.Meta; !strings.Contains(meta, "74k tok/s") {
		t.Errorf("the answer's label: %q", meta)
	}
}

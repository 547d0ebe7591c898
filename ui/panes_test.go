package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/pipeline/pipelinetest"
	"github.com/chorusai/chorus/ui/turnview"
)

// A turn driven by synthetic events, as the pipeline would send them.
func syntheticTurn(now time.Time) *shownTurn {
	t := newShownTurn(1, "req", nil, "qwen3:8b", now)
	for _, ev := range pipelinetest.ImageTurn() {
		t.apply(ev, now)
	}
	return t
}

func TestTabFollowsStageUntilPinned(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	tr := startStream(m)
	send := func(ev pipeline.Event) { m.Update(pumpMsg{turn: tr.ID, items: []any{ev}}) }
	send(pipeline.StageEvent{Stage: pipeline.StageSelection})
	if m.panes.tab != turnview.PaneModels {
		t.Fatalf("selection should show Models, got %v", m.panes.tab)
	}
	send(pipeline.StageEvent{Stage: pipeline.StageExecution})
	if m.panes.tab != turnview.PaneExec {
		t.Fatalf("execution should show Execution, got %v", m.panes.tab)
	}
	m.Update(keyF3)
	if m.panes.tab != turnview.PanePlan || !m.panes.pinned {
		t.Fatalf("f3 should pick the next tab and pin it: %v %v", m.panes.tab, m.panes.pinned)
	}
	send(pipeline.StageEvent{Stage: pipeline.StageResponse})
	if m.panes.tab != turnview.PanePlan {
		t.Error("a pinned tab must not follow the stage")
	}
	// Events of a turn no longer followed are ignored.
	m.Update(pumpMsg{turn: tr.ID + 7, items: []any{pipeline.TokenEvent{Text: "stale"}}})
	if strings.Contains(tr.Answer, "stale") {
		t.Error("events of another turn leaked into this one")
	}
}

// TestPaneScrollStopsAtTheEnd: scrolling a pane past its end does nothing
// more, so the first press the other way moves it at once — in the tabbed
// panel and in the wide column.
func TestPaneScrollStopsAtTheEnd(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	tr := syntheticTurn(fixedNow)
	for i := 0; i < 80; i++ { // a long execution log
		tr.Apply(pipeline.TaskProgressEvent{ID: 1, Message: "step " + strings.Repeat("x", i%5)}, fixedNow)
	}
	m.turns = []*shownTurn{tr}
	altComma := tea.KeyPressMsg{Code: ',', Mod: tea.ModAlt}
	altDot := tea.KeyPressMsg{Code: '.', Mod: tea.ModAlt}
	for _, sz := range [][2]int{{80, 30}, {160, 48}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m.panes.tab, m.panes.scroll = turnview.PaneExec, 0
		newest := m.View().Content
		for range 40 {
			m.Update(altComma)
			m.View()
		}
		oldest := m.View().Content
		if oldest == newest {
			t.Fatalf("%dx%d: scrolling the execution log back changed nothing", sz[0], sz[1])
		}
		m.Update(altDot)
		if m.View().Content == oldest {
			t.Errorf("%dx%d: after scrolling past the top, one press back should move the pane (scroll %d)", sz[0], sz[1], m.panes.scroll)
		}
	}
}

package turnview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/theme"
)

// busyTurn has a finished task whose selection excluded many models (a
// synced catalog) and a long execution log: more than a column can hold.
func busyTurn() *TurnState {
	tr := NewTurnState(1, "say good morning", nil, "qwen3:8b", fixedNow)
	var excluded []pipeline.Exclusion
	for i := range 30 {
		excluded = append(excluded, pipeline.Exclusion{ID: fmt.Sprintf("someone/voice-%02d", i), Reason: "licence unknown is not in the allow-list"})
	}
	tr.Apply(pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-speech", Args: map[string]string{"text": "good morning"}}}}, fixedNow)
	tr.Apply(pipeline.ModelEvent{ID: 1, Task: "text-to-speech", Model: "espeak-ng", Endpoint: "command", Decided: "ranked", Reason: "espeak-ng runs here", Excluded: excluded}, fixedNow)
	tr.Apply(pipeline.TaskStartEvent{ID: 1, Task: "text-to-speech", Model: "espeak-ng", Endpoint: "command"}, fixedNow)
	for i := range 40 {
		tr.Apply(pipeline.TaskProgressEvent{ID: 1, Message: fmt.Sprintf("step %02d", i)}, fixedNow)
	}
	tr.Apply(pipeline.TaskEndEvent{ID: 1, Task: "text-to-speech", Status: pipeline.StatusOK, Model: "espeak-ng", Endpoint: "command", Result: "1.0 s of speech"}, fixedNow)
	return tr
}

func keysCtx(st *theme.Styles, tr *TurnState) RenderContext {
	return RenderContext{Styles: st, Turn: tr, Now: fixedNow, Width: 64, ExpandKey: "f6", FocusKey: "f3", ScrollUpKey: "alt+,", ScrollDownKey: "alt+.", ZoomKey: "f7"}
}

// Expanding the Models pane in the column (f6) gives it the room: its
// details show, not two rows and a "… 60 more lines" counter.
func TestExpandedModelsTakeTheColumn(t *testing.T) {
	st := theme.NewStyles()
	pc := keysCtx(&st, busyTurn())
	pc.Expanded = true
	scroll := 0
	col := plainLines(Column(pc, 40, PaneModels, &scroll))
	if n := strings.Count(col, "✗ someone/voice-"); n < 25 {
		t.Fatalf("the expanded Models pane shows %d of 30 excluded models in a 40-row column:\n%s", n, col)
	}
	// What does not fit is reachable, and the pane says with which key.
	if !strings.Contains(col, "more lines · alt+. scrolls") {
		t.Errorf("the clipped Models pane does not name the scroll key:\n%s", col)
	}
	scroll = 100
	col = plainLines(Column(pc, 40, PaneModels, &scroll))
	if !strings.Contains(col, "✗ someone/voice-29") || !strings.Contains(col, "f6 collapses") {
		t.Errorf("scrolled to the end, the Models pane does not show its last lines:\n%s", col)
	}
	if scroll >= 100 {
		t.Errorf("scroll %d was not clamped to the lines there are", scroll)
	}
}

// Every pane of the column can show all of its content: the one in focus
// gets the room, and each clipped pane says which key brings the rest.
func TestEveryPaneCanShowAllItsContent(t *testing.T) {
	st := theme.NewStyles()
	pc := keysCtx(&st, busyTurn())
	for _, focus := range []Pane{PanePlan, PaneModels, PaneExec} {
		for _, expanded := range []bool{false, true} {
			pc.Expanded = expanded
			all := plainLines(paneLines(pc, focus))
			seen := map[string]bool{}
			// Scroll through the focused pane from one end to the other.
			for scroll := 0; scroll < 200; scroll++ {
				s := scroll
				for _, l := range strings.Split(plainLines(Column(pc, 30, focus, &s)), "\n") {
					seen[strings.TrimSpace(l)] = true
				}
			}
			for _, want := range strings.Split(all, "\n") {
				if w := strings.TrimSpace(want); w != "" && !seen[w] {
					t.Errorf("%s (expanded %v): %q never shows in a 30-row column", focus.title(), expanded, w)
					break
				}
			}
		}
	}
	// A pane out of focus that is cut says how to focus it.
	pc.Expanded = true
	s := 0
	col := plainLines(Column(pc, 30, PaneExec, &s))
	if !strings.Contains(col, "more lines · f3 focuses") {
		t.Errorf("a clipped pane out of focus does not name the focus key:\n%s", col)
	}
	// The Execution pane shows its newest lines and says what is above.
	if !strings.Contains(col, "earlier lines · alt+, scrolls") {
		t.Errorf("the Execution pane hides earlier lines without saying so:\n%s", col)
	}
	// The narrow layout's tab, too.
	s = 0
	tab := plainLines(Tabbed(pc, PaneModels, 10, &s))
	if !strings.Contains(tab, "more lines · alt+. scrolls") {
		t.Errorf("the Models tab does not name the scroll key:\n%s", tab)
	}
}

package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/turnview"
)

// panes is what the user chose about the Plan, Models and Execution panes:
// whether they show, the pane in focus (the tab of the narrow layout; in
// the column, the one that gets the room), and how far it is scrolled.
// turnview draws them.
type panes struct {
	shown bool
	tab   turnview.Pane
	// pinned is set when the user picked a tab during this turn, so the
	// stage no longer switches it.
	pinned bool
	// scroll is how far the pane in focus is scrolled: lines from the top
	// for Plan and Models, lines back from the newest for Execution.
	scroll int
	// expanded shows the Models pane's details (the expand key).
	expanded bool
}

// newTurn shows a new turn from its plan (unless the user picked a tab
// during the last one), scrolled to the end.
func (p *panes) newTurn() {
	if !p.pinned {
		p.tab = turnview.PanePlan
	}
	p.pinned, p.scroll = false, 0
}

// follow shows the pane of the stage that began, unless a tab is pinned.
func (p *panes) follow(stage pipeline.Stage) {
	if p.pinned {
		return
	}
	switch stage {
	case pipeline.StagePlanning, pipeline.StageRevision:
		p.tab = turnview.PanePlan
	case pipeline.StageSelection:
		p.tab = turnview.PaneModels
	case pipeline.StageExecution, pipeline.StageResponse:
		p.tab = turnview.PaneExec
	}
}

// togglePanes hides or shows the panes.
func (m *Model) togglePanes() tea.Cmd {
	m.panes.shown = !m.panes.shown
	m.layout()
	return m.requestThumbs()
}

// nextPane picks the next tab and pins it; hidden panes show again.
func (m *Model) nextPane() tea.Cmd {
	m.panes.tab = (m.panes.tab + 1) % turnview.NumPanes
	m.panes.pinned, m.panes.scroll = true, 0
	if !m.panes.shown {
		m.panes.shown = true
		m.layout()
	}
	return nil
}

// toggleDetails expands the Models pane — every reason, candidate and
// excluded model — or collapses it to one line per task. In the narrow
// layout it shows the Models tab; hidden panes show again.
func (m *Model) toggleDetails() tea.Cmd {
	m.panes.expanded = !m.panes.expanded
	m.panes.scroll = 0
	if m.panes.expanded {
		m.panes.tab, m.panes.pinned = turnview.PaneModels, true
	}
	if !m.panes.shown {
		m.panes.shown = true
		m.layout()
	}
	return nil
}

// scrollBy moves the pane in focus by n lines, down when n > 0: Execution
// counts back from its newest line, the others from their top.
func (p *panes) scrollBy(n int) {
	if p.tab == turnview.PaneExec {
		n = -n
	}
	p.scroll = max(0, p.scroll+n)
}

// zoomPane shows the pane in focus full screen — at any size, where the
// panel gives way too — with every line reachable.
func (m *Model) zoomPane() tea.Cmd {
	m.openDialog(dialog.NewPanes(m.keys, m.paneContext(), m.panes.tab), nil)
	return nil
}

package dialog

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

// Panes shows one of the Plan, Models and Execution panes as big as the
// screen allows, at any terminal size (where the narrow panel gives way
// too): every line reachable by scrolling, next_pane switching panes,
// expand showing the Models details.
type Panes struct {
	keys   theme.KeyMap
	pc     turnview.RenderContext
	pane   turnview.Pane
	offset int
	// follow keeps the Execution pane on its newest lines until the user
	// scrolls.
	follow bool
}

// Focus tells the parent which pane the view shows and whether the Models
// details are expanded, so the panes stay so when it closes.
type Focus struct {
	Pane     turnview.Pane
	Expanded bool
}

func (Focus) dialogAction() {}

// NewPanes returns the full view of pane of the turn pc draws.
func NewPanes(keys theme.KeyMap, pc turnview.RenderContext, pane turnview.Pane) *Panes {
	return &Panes{keys: keys, pc: pc, pane: pane, follow: pane == turnview.PaneExec}
}

// Update scrolls, switches panes and expands; esc, q or the zoom key close.
func (d *Panes) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case d.keys.Matches(k, theme.ActCloseDialog), d.keys.Matches(k, theme.ActZoomPane), k.String() == "q":
		return Close{}, nil
	case d.keys.Matches(k, theme.ActNextPane):
		d.pane, d.offset = (d.pane+1)%turnview.NumPanes, 0
		d.follow = d.pane == turnview.PaneExec
		return Focus{Pane: d.pane, Expanded: d.pc.Expanded}, nil
	case d.keys.Matches(k, theme.ActExpand):
		d.pc.Expanded = !d.pc.Expanded
		d.pane, d.offset, d.follow = turnview.PaneModels, 0, false
		return Focus{Pane: d.pane, Expanded: d.pc.Expanded}, nil
	case k.String() == "down" || k.String() == "j":
		d.offset++
	case k.String() == "up" || k.String() == "k":
		d.offset, d.follow = max(0, d.offset-1), false
	case d.keys.Matches(k, theme.ActScrollDown) || d.keys.Matches(k, theme.ActPaneDown) || k.String() == "space":
		d.offset += 10
	case d.keys.Matches(k, theme.ActScrollUp) || d.keys.Matches(k, theme.ActPaneUp):
		d.offset, d.follow = max(0, d.offset-10), false
	case k.String() == "home" || d.keys.Matches(k, theme.ActScrollTop):
		d.offset, d.follow = 0, false
	case k.String() == "end" || d.keys.Matches(k, theme.ActScrollBottom):
		d.follow = true
	}
	return nil, nil
}

// View shows the pane's lines from the scroll offset, clamped so the last
// page stays full; the title names the pane and the others.
func (d *Panes) View(w, h int) (string, []string, string) {
	pc := d.pc
	pc.Width = w
	lines := turnview.Lines(pc, d.pane)
	last := max(0, len(lines)-h)
	if d.follow {
		d.offset = last
	}
	d.offset = min(d.offset, last)
	end := min(len(lines), d.offset+h)
	title := ""
	for k := range turnview.NumPanes {
		name := k.Title()
		if k == d.pane {
			name = "[" + name + "]"
		}
		if title != "" {
			title += " · "
		}
		title += name
	}
	footer := fmt.Sprintf("%s next pane · %s details · esc closes", d.keys.Label(theme.ActNextPane), d.keys.Label(theme.ActExpand))
	if len(lines) > h {
		footer = fmt.Sprintf("↑/↓ pgup/pgdn scroll (%d–%d of %d) · ", d.offset+1, end, len(lines)) + footer
	}
	return title, lines[d.offset:end], footer
}

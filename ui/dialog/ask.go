package dialog

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// Ask asks a yes-or-no question about something about to happen — an
// MCP tool that may change things — with the facts to decide on: y (or
// enter) says yes, a says yes and do not ask again this chat, n (or esc)
// says no.
type Ask struct {
	keys  theme.KeyMap
	title string
	rows  []Row
}

// Yes approves what was asked about; Always also for the rest of the
// chat.
type Yes struct{ Always bool }

// No turns it down.
type No struct{}

func (Yes) dialogAction() {}
func (No) dialogAction()  {}

// NewAsk returns the question: its title and the rows of facts.
func NewAsk(keys theme.KeyMap, title string, rows []Row) *Ask {
	return &Ask{keys: keys, title: title, rows: rows}
}

// Update answers on y, a, n, enter and esc.
func (d *Ask) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case k.String() == "y" || d.keys.Matches(k, theme.ActDialogConfirm):
		return Yes{}, nil
	case k.String() == "a":
		return Yes{Always: true}, nil
	case k.String() == "n" || d.keys.Matches(k, theme.ActCloseDialog):
		return No{}, nil
	}
	return nil, nil
}

// View shows the facts, wrapped to the box.
func (d *Ask) View(w, h int) (string, []string, string) {
	var lines []string
	for _, l := range layoutRows(d.rows, w) {
		if ansi.StringWidth(l) > w {
			lines = append(lines, chat.WrapPlain(l, w)...)
		} else {
			lines = append(lines, l)
		}
	}
	if len(lines) > h {
		lines = append(lines[:max(0, h-1)], "…")
	}
	return d.title, lines, strings.Join([]string{"y run it", "a always, this chat", "n don't (the task fails)"}, " · ")
}

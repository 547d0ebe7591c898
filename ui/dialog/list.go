package dialog

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// Item is one choice of a List.
type Item struct {
	Label  string
	Detail string
}

// List lets the user pick one item with ↑/↓ (or its number) and Enter.
type List struct {
	keys  theme.KeyMap
	st    *theme.Styles
	title string
	items []Item
	sel   int
	// hint says what choosing does, before the keys in the footer.
	hint string
}

// NewList returns a list dialog; hint ("opens the session") starts its
// footer.
func NewList(keys theme.KeyMap, st *theme.Styles, title string, items []Item, hint string) *List {
	return &List{keys: keys, st: st, title: title, items: items, hint: hint}
}

// Update moves the selection; enter or a number picks, esc closes.
func (d *List) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case d.keys.Matches(k, theme.ActCloseDialog):
		return Close{}, nil
	case d.keys.Matches(k, theme.ActDialogConfirm):
		if len(d.items) > 0 {
			return Pick{Index: d.sel}, nil
		}
		return Close{}, nil
	case k.String() == "down" || k.String() == "j" || k.String() == "tab":
		if len(d.items) > 0 {
			d.sel = (d.sel + 1) % len(d.items)
		}
	case k.String() == "up" || k.String() == "k" || k.String() == "shift+tab":
		if len(d.items) > 0 {
			d.sel = (d.sel - 1 + len(d.items)) % len(d.items)
		}
	case len(k.Text) == 1 && k.Text[0] >= '1' && k.Text[0] <= '9':
		if i := int(k.Text[0] - '1'); i < len(d.items) {
			return Pick{Index: i}, nil
		}
	}
	return nil, nil
}

// View shows the items around the selection, numbered 1–9.
func (d *List) View(w, h int) (string, []string, string) {
	st := d.st
	var lines []string
	start := max(0, min(d.sel-h/2, len(d.items)-h))
	for i := start; i < len(d.items) && len(lines) < h; i++ {
		it := d.items[i]
		num := "  "
		if i < 9 {
			num = fmt.Sprintf("%d ", i+1)
		}
		line := num + chat.Clip(it.Label, 200)
		if it.Detail != "" {
			line += st.Dim.Render("  " + chat.Clip(it.Detail, 200))
		}
		line = ansi.Truncate(line, w, "…")
		if i == d.sel {
			line = st.Selected.Render(chat.PadRight(ansi.Strip(line), w))
		}
		lines = append(lines, line)
	}
	if len(d.items) == 0 {
		lines = append(lines, st.Dim.Render("(nothing here)"))
	}
	footer := "↑/↓ or number · enter chooses · esc closes"
	if d.hint != "" {
		footer = d.hint + " · " + footer
	}
	return d.title, lines, footer
}

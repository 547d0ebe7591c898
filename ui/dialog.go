package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// dialog is a box over the chat that takes the keyboard until closed.
type dialog interface {
	// update handles a key press or a paste.
	update(m *Model, msg tea.Msg) tea.Cmd
	// view returns the title and the body for a box of at most w×h cells.
	view(m *Model, w, h int, now time.Time) (title string, body []string, footer string)
}

// dialogBox renders the open dialog. The box is drawn over the rows above
// the hint line; where they are too few (a short terminal, a tall prompt)
// it covers the hint line and the prompt too (overPrompt), which wait
// while a dialog has the keyboard. On very short terminals it drops its
// blank lines; a body taller than its room is cut. No dialog is ever asked
// for a negative height.
func (m *Model) dialogBox(now time.Time) (box string, overPrompt bool) {
	w := min(m.width-4, 96)
	rows := m.height - m.fixedHeight()
	if rows < 12 {
		rows, overPrompt = m.height-1, true // all but the status bar
	}
	// Normally: two rows of margin, the border, a blank line after the
	// title and one before the footer.
	compact := rows < 12
	room := rows - 8
	if compact {
		room = rows - 4 // border, title, footer
	}
	room = max(1, room)
	title, body, footer := m.dialog.view(m, w-4, room, now)
	if len(body) > room {
		body = body[:room]
	}
	st := m.st
	inner := []string{st.DialogTitle.Render(title)}
	if !compact {
		inner = append(inner, "")
	}
	inner = append(inner, body...)
	if footer != "" {
		if !compact {
			inner = append(inner, "")
		}
		inner = append(inner, st.Hint.Render(footer))
	}
	for i, l := range inner {
		inner[i] = chat.PadRight(l, w-4)
	}
	return st.Dialog.Render(strings.Join(inner, "\n")), overPrompt
}

// textDialog shows scrollable text: /help, /plan, command output too long
// for the chat.
type textDialog struct {
	title string
	lines []string
	// rows, when set, are two-column entries (key, text) laid out for the
	// dialog's width with the text wrapped under itself.
	rows   [][2]string
	offset int
}

// layoutRows formats two-column rows for width w.
func layoutRows(rows [][2]string, w int) []string {
	col := 0
	for _, r := range rows {
		if r[1] != "" {
			col = max(col, ansi.StringWidth(r[0]))
		}
	}
	col = min(col+2, max(w/3, 12))
	var out []string
	for _, r := range rows {
		if r[1] == "" { // a heading or a blank line
			out = append(out, r[0])
			continue
		}
		k := r[0]
		if ansi.StringWidth(k) > col-2 {
			out = append(out, k)
			k = ""
		}
		pad := strings.Repeat(" ", col-ansi.StringWidth(k))
		for i, l := range chat.WrapPlain(r[1], max(10, w-col)) {
			if i == 0 {
				out = append(out, k+pad+l)
			} else {
				out = append(out, strings.Repeat(" ", col)+l)
			}
		}
	}
	return out
}

func (d *textDialog) update(m *Model, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case m.keys.Matches(k, theme.ActCloseDialog), m.keys.Matches(k, theme.ActDialogConfirm), k.String() == "q":
		m.dialog = nil
	case k.String() == "down" || k.String() == "j":
		d.offset++
	case k.String() == "up" || k.String() == "k":
		d.offset = max(0, d.offset-1)
	case m.keys.Matches(k, theme.ActScrollDown) || k.String() == "space":
		d.offset += 10
	case m.keys.Matches(k, theme.ActScrollUp):
		d.offset = max(0, d.offset-10)
	}
	return nil
}

func (d *textDialog) view(m *Model, w, h int, _ time.Time) (string, []string, string) {
	var lines []string
	src := d.lines
	if d.rows != nil {
		src = layoutRows(d.rows, w)
	}
	for _, l := range src {
		if ansi.StringWidth(l) > w {
			lines = append(lines, strings.Split(ansi.Wrap(l, w, " "), "\n")...)
		} else {
			lines = append(lines, l)
		}
	}
	d.offset = min(d.offset, max(0, len(lines)-h))
	end := min(len(lines), d.offset+h)
	footer := "esc closes"
	if len(lines) > h {
		footer = fmt.Sprintf("↑/↓ scroll (%d–%d of %d) · esc closes", d.offset+1, end, len(lines))
	}
	return d.title, lines[d.offset:end], footer
}

// newHelpDialog lists the keys (as configured) and the commands.
func newHelpDialog(m *Model) *textDialog {
	st := m.st
	rows := [][2]string{{st.Bold.Render("Keys"), ""}}
	for _, a := range theme.Actions() {
		rows = append(rows, [2]string{"  " + strings.Join(m.keys.Keys(a.Action), " / "), a.Help})
	}
	rows = append(rows, [2]string{"", ""}, [2]string{st.Bold.Render("Commands"), ""})
	for _, c := range commands {
		rows = append(rows, [2]string{"  " + strings.TrimSpace(c.name+" "+c.args), c.help})
	}
	rows = append(rows, [2]string{"", ""}, [2]string{st.Dim.Render("Remap keys in the ui.keys section of the config file (" + configPathHint(m) + ")."), ""})
	return &textDialog{title: "Help", rows: rows}
}

func configPathHint(m *Model) string {
	if m.opts.Config.File != "" {
		return m.opts.Config.File
	}
	return "$XDG_CONFIG_HOME/chorus/config.yaml"
}

// listItem is one choice of a listDialog.
type listItem struct {
	label  string
	detail string
}

// listDialog lets the user pick one item with ↑/↓ (or its number) and
// Enter.
type listDialog struct {
	title  string
	items  []listItem
	sel    int
	choose func(m *Model, i int) tea.Cmd
	hint   string
}

func (d *listDialog) update(m *Model, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case m.keys.Matches(k, theme.ActCloseDialog):
		m.dialog = nil
	case m.keys.Matches(k, theme.ActDialogConfirm):
		m.dialog = nil
		if len(d.items) > 0 {
			return d.choose(m, d.sel)
		}
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
			m.dialog = nil
			return d.choose(m, i)
		}
	}
	return nil
}

func (d *listDialog) view(m *Model, w, h int, _ time.Time) (string, []string, string) {
	st := m.st
	var lines []string
	start := max(0, min(d.sel-h/2, len(d.items)-h))
	for i := start; i < len(d.items) && len(lines) < h; i++ {
		it := d.items[i]
		num := "  "
		if i < 9 {
			num = fmt.Sprintf("%d ", i+1)
		}
		line := num + chat.Clip(it.label, 200)
		if it.detail != "" {
			line += st.Dim.Render("  " + chat.Clip(it.detail, 200))
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

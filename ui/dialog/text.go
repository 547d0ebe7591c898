package dialog

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// Row is one entry of a Text dialog: a key and what it does, laid out in
// two columns with the text wrapped under itself. A row without Text is a
// heading or, empty, a blank line.
type Row struct {
	Key, Text string
}

// Text shows scrollable two-column text, such as /help.
type Text struct {
	keys   theme.KeyMap
	title  string
	rows   []Row
	offset int
}

// NewText returns a text dialog; keys close and scroll it.
func NewText(keys theme.KeyMap, title string, rows []Row) *Text {
	return &Text{keys: keys, title: title, rows: rows}
}

// layoutRows formats two-column rows for width w.
func layoutRows(rows []Row, w int) []string {
	col := 0
	for _, r := range rows {
		if r.Text != "" {
			col = max(col, ansi.StringWidth(r.Key))
		}
	}
	col = min(col+2, max(w/3, 12))
	var out []string
	for _, r := range rows {
		if r.Text == "" { // a heading or a blank line
			out = append(out, r.Key)
			continue
		}
		k := r.Key
		if ansi.StringWidth(k) > col-2 {
			out = append(out, k)
			k = ""
		}
		pad := strings.Repeat(" ", col-ansi.StringWidth(k))
		for i, l := range chat.WrapPlain(r.Text, max(10, w-col)) {
			if i == 0 {
				out = append(out, k+pad+l)
			} else {
				out = append(out, strings.Repeat(" ", col)+l)
			}
		}
	}
	return out
}

// Update scrolls; esc, enter or q close.
func (d *Text) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case d.keys.Matches(k, theme.ActCloseDialog), d.keys.Matches(k, theme.ActDialogConfirm), k.String() == "q":
		return Close{}, nil
	case k.String() == "down" || k.String() == "j":
		d.offset++
	case k.String() == "up" || k.String() == "k":
		d.offset = max(0, d.offset-1)
	case d.keys.Matches(k, theme.ActScrollDown) || k.String() == "space":
		d.offset += 10
	case d.keys.Matches(k, theme.ActScrollUp):
		d.offset = max(0, d.offset-10)
	}
	return nil, nil
}

// View shows the rows from the scroll offset, clamped so the last page
// stays full.
func (d *Text) View(w, h int) (string, []string, string) {
	var lines []string
	for _, l := range layoutRows(d.rows, w) {
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

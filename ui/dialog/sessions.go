package dialog

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// SessionItem is one saved session in the Sessions dialog.
type SessionItem struct {
	ID, Title, Detail string
	// Text is what was said in the session (the turns' requests and
	// answers), which the search reads too.
	Text string
	// Damaged says why the file cannot be opened ("" when it can).
	Damaged string
}

// FilterValue is what the search matches: the title and the id, then,
// after textSep, the turns' text (searchSessions tells them apart).
func (it SessionItem) FilterValue() string { return it.Title + " " + it.ID + textSep + it.Text }

// textSep separates a session's title and id from its text in FilterValue.
const textSep = "\x00"

// searchSessions is the dialog's search: titles and ids fuzzily (typing a
// few letters of a title finds it), best first; then the sessions whose
// text contains every word typed, in any order — as words, not letter by
// letter, or any long answer would match every search.
func searchSessions(term string, targets []string) []list.Rank {
	heads := make([]string, len(targets))
	for i, t := range targets {
		heads[i], _, _ = strings.Cut(t, textSep)
	}
	ranks := list.DefaultFilter(term, heads)
	found := map[int]bool{}
	for _, r := range ranks {
		found[r.Index] = true
	}
	words := strings.Fields(strings.ToLower(term))
	if len(words) == 0 {
		return ranks
	}
	for i, t := range targets {
		_, body, _ := strings.Cut(t, textSep)
		if !found[i] && containsWords(strings.ToLower(body), words) {
			ranks = append(ranks, list.Rank{Index: i})
		}
	}
	return ranks
}

func containsWords(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// snippet is the line of text around the first word of term, for showing
// where a search matched inside a session; "" when it did not.
func snippet(text, term string) string {
	words := strings.Fields(strings.ToLower(term))
	if len(words) == 0 {
		return ""
	}
	for _, line := range strings.Split(text, "\n") {
		i := strings.Index(strings.ToLower(line), words[0])
		if i < 0 {
			continue
		}
		start := max(0, i-30)
		for start > 0 && start < len(line) && !utf8.RuneStart(line[start]) {
			start--
		}
		out := strings.TrimSpace(line[start:])
		if start > 0 {
			out = "…" + out
		}
		return out
	}
	return ""
}

// Delete asks the parent to delete the saved session ID; the dialog has
// already taken it off its list.
type Delete struct{ ID string }

func (Delete) dialogAction() {}

// Sessions lists the saved sessions with a search: typing filters by title
// or id, and by what was said in the turns, at once (there are no single-key shortcuts, so "zebras 4" is a
// search, never "open #4"), ↑/↓ move, enter opens (Pick, with the index in
// the items given), ctrl+d or delete deletes after a y/n, esc clears the
// search or closes.
type Sessions struct {
	keys    theme.KeyMap
	st      *theme.Styles
	items   []SessionItem
	list    list.Model
	current string // the open session's id, which cannot be deleted
	// confirm is the session waiting for y/n before it is deleted.
	confirm *SessionItem
	note    string
}

// NewSessions returns the dialog over items, newest first; current is
// the id of the session open in the chat.
func NewSessions(keys theme.KeyMap, st *theme.Styles, items []SessionItem, current string) *Sessions {
	li := make([]list.Item, len(items))
	for i, it := range items {
		li[i] = it
	}
	l := list.New(li, sessionDelegate{st: st}, 40, 10)
	l.SetShowTitle(false)
	l.SetShowStatusBar(false)
	l.SetShowHelp(false)
	l.SetShowPagination(false)
	l.DisableQuitKeybindings()
	l.Filter = searchSessions
	l.FilterInput.Prompt = "search: "
	l.SetFilterText("")
	l.SetFilterState(list.Filtering) // typing searches at once
	return &Sessions{keys: keys, st: st, items: items, list: l, current: current}
}

// Update searches, moves, opens, deletes or closes.
func (d *Sessions) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if isKey && d.confirm != nil {
		it := *d.confirm
		d.confirm = nil
		if k.String() == "y" || k.String() == "Y" {
			d.remove(it.ID)
			d.note = "deleted " + chat.Clip(it.Title, 40)
			return Delete{ID: it.ID}, nil
		}
		d.note = "kept " + chat.Clip(it.Title, 40)
		return nil, nil
	}
	if isKey {
		d.note = ""
		switch {
		case d.keys.Matches(k, theme.ActCloseDialog):
			if d.list.FilterValue() != "" {
				d.list.SetFilterText("")
				d.list.SetFilterState(list.Filtering)
				return nil, nil
			}
			return Close{}, nil
		case d.keys.Matches(k, theme.ActDialogConfirm):
			it, ok := d.list.SelectedItem().(SessionItem)
			if !ok {
				return nil, nil
			}
			for i := range d.items {
				if d.items[i].ID == it.ID {
					return Pick{Index: i}, nil
				}
			}
			return nil, nil
		case k.String() == "up" || k.String() == "shift+tab" || k.String() == "ctrl+p":
			d.list.CursorUp()
			return nil, nil
		case k.String() == "down" || k.String() == "tab" || k.String() == "ctrl+n":
			d.list.CursorDown()
			return nil, nil
		case k.String() == "pgup":
			d.list.PrevPage()
			return nil, nil
		case k.String() == "pgdown":
			d.list.NextPage()
			return nil, nil
		case k.String() == "ctrl+d" || k.String() == "delete":
			it, ok := d.list.SelectedItem().(SessionItem)
			switch {
			case !ok:
			case it.ID == d.current:
				d.note = "that is the session open now — /new first, then delete it"
			default:
				d.confirm = &it
			}
			return nil, nil
		}
	}
	var cmd tea.Cmd
	d.list, cmd = d.list.Update(msg)
	return nil, cmd
}

// remove takes id off the list, keeping the search.
func (d *Sessions) remove(id string) {
	var items []list.Item
	var kept []SessionItem
	for _, it := range d.items {
		if it.ID != id {
			kept = append(kept, it)
			items = append(items, it)
		}
	}
	d.items = kept
	filter := d.list.FilterValue()
	d.list.SetItems(items)
	d.list.SetFilterText(filter)
	d.list.SetFilterState(list.Filtering)
}

// Items are the sessions still listed, in order.
func (d *Sessions) Items() []SessionItem { return d.items }

// View shows the search line and the matching sessions.
func (d *Sessions) View(w, h int) (string, []string, string) {
	st := d.st
	d.list.SetSize(max(w, 10), max(h, 2))
	lines := strings.Split(d.list.View(), "\n")
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(d.list.VisibleItems()) == 0 {
		lines = append(lines, st.Dim.Render("(no session matches)"))
	}
	switch {
	case d.confirm != nil:
		lines = append(lines, st.Warn.Render(chat.Clip("delete "+d.confirm.Title+"? y deletes the file, any other key keeps it", max(w, 10))))
	case d.note != "":
		lines = append(lines, st.Dim.Render(chat.Clip(d.note, max(w, 10))))
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	shown := len(d.list.VisibleItems())
	title := fmt.Sprintf("Sessions (%d)", len(d.items))
	if shown != len(d.items) {
		title = fmt.Sprintf("Sessions (%d of %d)", shown, len(d.items))
	}
	return title, lines, "type to search · ↑/↓ · enter opens · ctrl+d deletes · esc clears or closes"
}

// sessionDelegate draws one session per row: the title, then when, how
// many turns and the id, dimmed.
type sessionDelegate struct{ st *theme.Styles }

func (sessionDelegate) Height() int                         { return 1 }
func (sessionDelegate) Spacing() int                        { return 0 }
func (sessionDelegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }

func (d sessionDelegate) Render(w io.Writer, m list.Model, index int, item list.Item) {
	it, ok := item.(SessionItem)
	if !ok {
		return
	}
	width := m.Width()
	line := "  " + chat.Clip(it.Title, 200)
	detail := it.Detail
	if words := strings.Fields(m.FilterValue()); len(words) > 0 && !strings.Contains(strings.ToLower(it.Title+" "+it.ID), strings.ToLower(words[0])) {
		// Found in what was said: show where.
		if sn := snippet(it.Text, m.FilterValue()); sn != "" {
			detail = "“" + chat.Clip(sn, 80) + "”"
		}
	}
	if it.Damaged != "" {
		detail = "damaged: " + it.Damaged
	}
	if detail != "" {
		line += d.st.Dim.Render("  " + chat.Clip(detail, 200))
	}
	line = ansi.Truncate(line, width, "…")
	if index == m.Index() {
		line = d.st.Selected.Render(chat.PadRight("› "+strings.TrimPrefix(ansi.Strip(line), "  "), width))
	}
	fmt.Fprint(w, line)
}

package dialog

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// Dialog is a box over the chat that takes the keyboard until its parent
// closes it.
type Dialog interface {
	// Update handles a key press or a paste and says what the parent
	// should do about it (nil: nothing).
	Update(msg tea.Msg) (Action, tea.Cmd)
	// View returns the title, the body for a box of at most w×h cells,
	// and the footer.
	View(w, h int) (title string, body []string, footer string)
}

// Action is what a dialog asks of its parent.
type Action interface{ dialogAction() }

// Close asks the parent to close the dialog: nothing was chosen.
type Close struct{}

// Pick is item Index of a list, chosen.
type Pick struct{ Index int }

// Approve runs Plan: the plan under review, or the user's edit of it.
type Approve struct{ Plan pipeline.Plan }

// Reject turns the plan under review down, which cancels the turn.
type Reject struct{}

func (Close) dialogAction()   {}
func (Pick) dialogAction()    {}
func (Approve) dialogAction() {}
func (Reject) dialogAction()  {}

// Box draws d in a rounded box w cells wide whose body gets room rows (a
// longer body is cut). Compact boxes, for very short terminals, drop the
// blank lines around the body.
func Box(d Dialog, st *theme.Styles, w, room int, compact bool) string {
	title, body, footer := d.View(w-4, room)
	if len(body) > room {
		body = body[:room]
	}
	inner := []string{st.DialogTitle.Render(title)}
	if !compact {
		inner = append(inner, "")
	}
	inner = append(inner, body...)
	if footer != "" {
		// A footer wider than the box wraps between its hints into the
		// blank line above it, so the box keeps its height; a compact box
		// has no such line and cuts it.
		rows := 2
		if compact {
			rows = 1
		}
		hints := wrapHints(footer, w-4)
		hints = hints[:min(len(hints), rows)]
		if len(hints) < rows {
			inner = append(inner, "")
		}
		for _, h := range hints {
			inner = append(inner, st.Hint.Render(h))
		}
	}
	for i, l := range inner {
		inner[i] = chat.PadRight(l, w-4)
	}
	return st.Dialog.Render(strings.Join(inner, "\n"))
}

// wrapHints breaks a footer of key hints ("enter opens · esc closes") into
// lines at most w cells wide, between hints, never inside one: a hint cut
// mid-word ("esc clears or clos") names no key.
func wrapHints(footer string, w int) []string {
	if footer == "" || ansi.StringWidth(footer) <= w {
		return []string{footer}
	}
	var lines []string
	cur := ""
	for _, h := range strings.Split(footer, " · ") {
		switch {
		case cur == "":
			cur = h
		case ansi.StringWidth(cur+" · "+h) <= w:
			cur += " · " + h
		default:
			lines = append(lines, cur)
			cur = h
		}
	}
	return append(lines, cur)
}

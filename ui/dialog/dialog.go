package dialog

import (
	"strings"

	tea "charm.land/bubbletea/v2"

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
		if !compact {
			inner = append(inner, "")
		}
		inner = append(inner, st.Hint.Render(footer))
	}
	for i, l := range inner {
		inner[i] = chat.PadRight(l, w-4)
	}
	return st.Dialog.Render(strings.Join(inner, "\n"))
}

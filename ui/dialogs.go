package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

// openDialog gives d the keyboard. onPick says what choosing an item of a
// list does; the dialog is closed before it runs.
func (m *Model) openDialog(d dialog.Dialog, onPick func(i int) tea.Cmd) {
	m.dialog, m.onPick = d, onPick
}

// closeDialog gives the keyboard back to the prompt.
func (m *Model) closeDialog() { m.dialog, m.onPick = nil, nil }

// updateDialog passes a key or a paste to the open dialog and acts on what
// it asks for.
func (m *Model) updateDialog(msg tea.Msg) tea.Cmd {
	act, cmd := m.dialog.Update(msg)
	return tea.Batch(cmd, m.onDialogAction(act))
}

// onDialogAction decides what a dialog's action means: closing, running
// the choice of a list, answering the plan review.
func (m *Model) onDialogAction(act dialog.Action) tea.Cmd {
	switch act := act.(type) {
	case dialog.Close:
		m.closeDialog()
	case dialog.Pick:
		pick := m.onPick
		m.closeDialog()
		if pick != nil {
			return pick(act.Index)
		}
	case dialog.Approve:
		m.answerReview(act.Plan, nil)
		m.closeDialog()
	case dialog.Reject:
		m.answerReview(pipeline.Plan{}, turnview.ErrPlanRejected)
		m.closeDialog()
	case dialog.Yes:
		m.answerApproval(nil, act.Always)
	case dialog.No:
		m.answerApproval(errDeclined, false)
	case dialog.Delete:
		return m.deleteSession(act.ID)
	case dialog.Focus:
		// The full view's pane stays the one in focus when it closes.
		m.panes.tab, m.panes.expanded, m.panes.pinned, m.panes.scroll = act.Pane, act.Expanded, true, 0
	}
	return nil
}

// onDialogCancelKey: Ctrl+C closes any dialog; during a turn it also
// cancels the turn (a plan under review included).
func (m *Model) onDialogCancelKey() tea.Cmd {
	if _, ok := m.dialog.(*dialog.Review); ok {
		m.answerReview(pipeline.Plan{}, turnview.ErrPlanRejected)
	}
	if _, ok := m.dialog.(*dialog.Ask); ok {
		m.answerApproval(errDeclined, false)
	}
	m.closeDialog()
	if m.running() {
		m.cancelledByKey = true
		return m.cancelTurn()
	}
	return nil
}

// dialogBox renders the open dialog. The box is drawn over the rows above
// the hint line; where they are too few (a short terminal, a tall prompt)
// it covers the hint line and the prompt too (overPrompt), which wait
// while a dialog has the keyboard. On very short terminals it drops its
// blank lines; a body taller than its room is cut. No dialog is ever asked
// for a negative height.
func (m *Model) dialogBox() (box string, overPrompt bool) {
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
	return dialog.Box(m.dialog, &m.st, w, room, compact), overPrompt
}

// helpDialog lists the keys (as configured) and the commands.
func (m *Model) helpDialog() *dialog.Text {
	st := m.st
	rows := []dialog.Row{{Key: st.Bold.Render("Keys")}}
	for _, a := range theme.Actions() {
		rows = append(rows, dialog.Row{Key: "  " + strings.Join(m.keys.Keys(a.Action), " / "), Text: a.Help})
	}
	rows = append(rows, dialog.Row{}, dialog.Row{Key: st.Bold.Render("Commands")})
	for _, c := range commandTable() {
		rows = append(rows, dialog.Row{Key: "  " + strings.TrimSpace(c.name+" "+c.args), Text: c.help})
	}
	rows = append(rows, dialog.Row{}, dialog.Row{Key: st.Dim.Render("Remap keys in the ui.keys section of the config file (" + configPathHint(m.opts) + ").")})
	return dialog.NewText(m.keys, "Help", rows)
}

// configPathHint names the config file to remap keys in.
func configPathHint(opts Options) string {
	if opts.Config.File != "" {
		return opts.Config.File
	}
	return "$XDG_CONFIG_HOME/chorus/config.yaml"
}

// showHelp opens the keys and commands.
func (m *Model) showHelp() tea.Cmd {
	m.openDialog(m.helpDialog(), nil)
	return nil
}

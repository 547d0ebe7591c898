package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/dialog"
)

// planReview is a plan waiting for the user's verdict in the review
// dialog. The pipeline goroutine waits on the request's reply channel;
// answer replies exactly once, whichever way the review ends.
type planReview struct {
	req      reviewRequest
	dialog   *dialog.Review
	answered bool
}

func (r *planReview) answer(plan pipeline.Plan, err error) {
	if r.answered {
		return
	}
	r.answered = true
	r.req.reply <- reviewReply{plan: plan, err: err} // buffered: never blocks
}

// openReview shows a plan the pipeline asks about.
func (m *Model) openReview(req reviewRequest) {
	var editor []string
	if m.opts.Remote == "" {
		// Over ssh, an editor started on the server would hand its user a
		// shell there (:!sh): the inline editor is theirs instead.
		editor = editorCommand(m.opts.Getenv)
	}
	d := dialog.NewReview(m.keys, &m.st, req.plan, editor, m.now)
	m.planReview = &planReview{req: req, dialog: d}
	m.openDialog(d, nil)
}

// answerReview answers the plan under review, if any.
func (m *Model) answerReview(plan pipeline.Plan, err error) {
	if m.planReview != nil {
		m.planReview.answer(plan, err)
	}
}

// editorCommand is $VISUAL or $EDITOR (vi if neither is set), split into
// the program and its arguments.
func editorCommand(getenv func(string) string) []string {
	ed := getenv("VISUAL")
	if ed == "" {
		ed = getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	return strings.Fields(ed)
}

// onEditorDone runs the edited plan, or reopens the review with the error.
func (m *Model) onEditorDone(msg dialog.EditorDone) tea.Cmd {
	r := m.planReview
	if r == nil || r.dialog != msg.Review || r.answered {
		return nil // the turn ended (cancelled) while the editor was open
	}
	act, ok := msg.Review.EditorReturned(msg).(dialog.Approve)
	if !ok {
		m.openDialog(msg.Review, nil)
		return nil
	}
	r.answer(act.Plan, nil)
	if m.dialog == msg.Review {
		m.closeDialog()
	}
	m.flashWhile("running the edited plan (validated again)", turnActivity)
	return nil
}

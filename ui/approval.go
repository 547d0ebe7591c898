package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/dialog"
)

// A tool that may change things — an MCP tool not annotated read-only,
// or annotated destructive — runs only once the user says so: the engine
// asks through the turn's Approve hook, the pump carries the question
// here, and a dialog shows the tool, why it asks and its arguments.

// approvalRequest asks whether a tool may run. The pipeline goroutine
// waits on reply; the model answers exactly once.
type approvalRequest struct {
	a     pipeline.Approval
	reply chan error
}

// errDeclined is the answer when the user says no.
var errDeclined = errors.New("you declined it")

// approveFunc returns the Turn.Approve hook that routes the question
// through the pump to the model's dialog.
func (p *pump) approveFunc() func(ctx context.Context, a pipeline.Approval) error {
	return func(ctx context.Context, a pipeline.Approval) error {
		reply := make(chan error, 1)
		p.push(approvalRequest{a: a, reply: reply})
		select {
		case err := <-reply:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// onApprovalRequest answers at once for a tool the user allowed for the
// chat, else queues the question and shows it when no other is open.
func (m *Model) onApprovalRequest(req approvalRequest) {
	if slices.Contains(m.allowedTools, req.a.Tool) {
		req.reply <- nil // buffered: never blocks
		return
	}
	m.approvals = append(m.approvals, req)
	m.asking(req.a.ID, true)
	if len(m.approvals) == 1 {
		m.showApproval()
	}
}

// asking marks the running turn's task id as waiting for the user (or no
// longer): its panes then say so rather than spin.
func (m *Model) asking(id int, waits bool) {
	if m.cur != nil {
		m.cur.Asking(id, waits)
	}
}

// showApproval opens the dialog for the first queued question.
func (m *Model) showApproval() {
	if len(m.approvals) == 0 {
		return
	}
	a := m.approvals[0].a
	rows := []dialog.Row{{Key: "task", Text: fmt.Sprintf("%d %s", a.ID, a.Task)}, {Key: "why", Text: a.Reason}}
	for _, k := range sortedArgs(a.Args) {
		rows = append(rows, dialog.Row{Key: k, Text: a.Args[k]})
	}
	m.openDialog(dialog.NewAsk(m.keys, "Run "+a.Tool+"?", rows), nil)
}

// answerApproval answers the question shown (nil: run it), closes its
// dialog and shows the next one.
func (m *Model) answerApproval(err error, always bool) {
	if len(m.approvals) == 0 {
		return
	}
	req := m.approvals[0]
	m.approvals = m.approvals[1:]
	m.asking(req.a.ID, false)
	if always && err == nil {
		m.allowedTools = append(m.allowedTools, req.a.Tool)
	}
	req.reply <- err
	m.closeDialog()
	// Questions about a tool now allowed for the chat need no dialog.
	rest := m.approvals[:0]
	for _, r := range m.approvals {
		if slices.Contains(m.allowedTools, r.a.Tool) {
			r.reply <- nil
			m.asking(r.a.ID, false)
			continue
		}
		rest = append(rest, r)
	}
	m.approvals = rest
	m.showApproval()
}

// dropApprovals answers every open question no, when the turn ends.
func (m *Model) dropApprovals() {
	if _, ok := m.dialog.(*dialog.Ask); ok {
		m.closeDialog()
	}
	for _, r := range m.approvals {
		r.reply <- errDeclined
		m.asking(r.a.ID, false)
	}
	m.approvals = nil
}

func sortedArgs(args map[string]string) []string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

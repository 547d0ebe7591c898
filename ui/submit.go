package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/prompt"
	"github.com/chorusai/chorus/ui/theme"
)

// onPromptEvent acts on what the prompt reports: a send, or pasted paths
// that became attachments.
func (m *Model) onPromptEvent(ev prompt.Event, cmd tea.Cmd) tea.Cmd {
	switch ev := ev.(type) {
	case prompt.Send:
		cmd = tea.Batch(cmd, m.submit(ev.Text))
	case prompt.Attached:
		m.flash(fmt.Sprintf("attached %s — they go with the next message", chat.Count(ev.Files, "file")), false)
	}
	m.layout()
	return cmd
}

// onPaste sends a paste to the dialog that has the keyboard, else to the
// prompt.
func (m *Model) onPaste(p tea.PasteMsg) tea.Cmd {
	if !m.pasteFits(p) {
		return nil
	}
	if m.dialog != nil {
		return m.updateDialog(p)
	}
	return m.onPromptEvent(m.input.Update(p))
}

// submit sends the prompt's text: a /command or a request.
func (m *Model) submit(text string) tea.Cmd {
	if strings.HasPrefix(text, "/") {
		m.input.Sent(text)
		m.layout()
		return m.runCommand(text)
	}
	if m.draining {
		m.flash(drainRefusal, true)
		return nil
	}
	if m.running() || m.submitting {
		m.flash(m.busyRefusal(), true)
		return nil
	}
	// Checking the @files stats them: do it in a command.
	m.submitting = true
	ws := m.ws
	return func() tea.Msg {
		request, files, err := prompt.ResolveAttachmentsIn(text, ws.expand, ws.confine)
		if err == nil {
			err = ws.checkAll(files)
		}
		return submitMsg{text: text, request: request, files: files, err: err}
	}
}

// submitMsg is a request whose attachments have been checked.
type submitMsg struct {
	text, request string
	files         []string
	err           error
}

func (m *Model) onSubmit(msg submitMsg) tea.Cmd {
	m.submitting = false
	if msg.err != nil {
		m.flash(msg.err.Error(), true)
		return nil
	}
	if m.running() {
		return nil
	}
	m.input.Sent(msg.text)
	m.layout()
	return m.startTurn(msg.request, msg.files)
}

// compose opens the prompt's text in $EDITOR, for a prompt longer than
// the six rows the prompt shows; the TUI is suspended meanwhile.
func (m *Model) compose() tea.Cmd {
	if m.opts.Remote != "" {
		// An editor started on the server would hand a remote user a
		// shell there (:!sh), as in the plan review.
		m.flash("no editor for a chat served over ssh — write here (shift+enter or alt+enter for a new line), or paste", true)
		return nil
	}
	return prompt.Compose(editorCommand(m.opts.Getenv), m.input.Value())
}

// onComposed puts what the editor returned in the prompt, to be read over
// and sent with enter (never sent at once: the editor may have been left
// by mistake).
func (m *Model) onComposed(msg prompt.Composed) tea.Cmd {
	if msg.Err != nil {
		m.flash(msg.Err.Error(), true)
		return nil
	}
	m.input.Set(msg.Text)
	m.layout()
	m.flash(fmt.Sprintf("prompt from the editor (%s) — %s sends it", chat.Count(strings.Count(msg.Text, "\n")+1, "line"), m.keys.Label(theme.ActSend)), false)
	return nil
}

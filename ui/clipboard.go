package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/text"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
)

// Copying uses OSC 52 (tea.SetClipboard): the terminal sets its own
// clipboard, so it works over ssh and, with `set -g set-clipboard on`, in
// tmux. Nothing here touches a local clipboard tool.

// copyText returns the command that copies s and the notice to show.
func (m *Model) copyText(what, s string) tea.Cmd {
	// What is pasted later must not be able to retitle a terminal or set
	// the clipboard again: the copy carries no escape sequence.
	s = text.Clean(s)
	m.flash(fmt.Sprintf("copied %s (%d characters) to the clipboard (OSC 52)", what, len([]rune(s))), false)
	return tea.SetClipboard(s)
}

// copyLastAnswer copies the newest answer's Markdown source.
func (m *Model) copyLastAnswer() tea.Cmd {
	a := m.chat.LastAnswer()
	if a == nil {
		m.flash("no answer to copy yet", true)
		return nil
	}
	return m.copyText("the last answer", a.Text)
}

// openCopyPicker offers the last answer, its code blocks and every file
// path of the chat (newest first) for copying.
func (m *Model) openCopyPicker() tea.Cmd {
	type choice struct {
		what, text string
	}
	var choices []choice
	var items []dialog.Item
	if a := m.chat.LastAnswer(); a != nil {
		choices = append(choices, choice{"the last answer", a.Text})
		items = append(items, dialog.Item{Label: "the whole answer", Detail: fmt.Sprintf("%d characters", len([]rune(a.Text)))})
		for i, cb := range chat.CodeBlocks(a.Text) {
			first, _, _ := strings.Cut(strings.TrimSpace(cb.Code), "\n")
			lang := cb.Lang
			if lang == "" {
				lang = "code"
			}
			choices = append(choices, choice{fmt.Sprintf("code block %d", i+1), cb.Code})
			items = append(items, dialog.Item{Label: fmt.Sprintf("code block %d (%s)", i+1, lang), Detail: chat.Clip(first, 50)})
		}
	}
	seen := map[string]bool{}
	msgs := m.chat.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		msg := msgs[i]
		for _, p := range append(append([]string{}, msg.Files...), msg.Attachments...) {
			if seen[p] {
				continue
			}
			seen[p] = true
			choices = append(choices, choice{p, p})
			items = append(items, dialog.Item{Label: p})
		}
	}
	if len(items) == 0 {
		m.flash("nothing to copy yet", true)
		return nil
	}
	m.openDialog(dialog.NewList(m.keys, &m.st, "Copy to the clipboard", items, "OSC 52"),
		func(i int) tea.Cmd { return m.copyText(choices[i].what, choices[i].text) })
	return nil
}

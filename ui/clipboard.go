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

// openCopyPicker offers, newest first, every message of the chat (the
// answers as Markdown, the requests as typed), the code blocks of the last
// answer, and every file path — not only the last answer, which at 80×24
// may be the one message not on screen.
func (m *Model) openCopyPicker() tea.Cmd {
	type choice struct {
		what, text string
	}
	var choices []choice
	var items []dialog.Item
	add := func(c choice, it dialog.Item) {
		choices = append(choices, c)
		items = append(items, it)
	}
	msgs := m.chat.Messages()
	last := m.chat.LastAnswer()
	if last != nil {
		add(choice{"the last answer", last.Text}, dialog.Item{Label: "the last answer", Detail: preview(last.Text)})
		for i, cb := range chat.CodeBlocks(last.Text) {
			lang := cb.Lang
			if lang == "" {
				lang = "code"
			}
			add(choice{fmt.Sprintf("code block %d", i+1), cb.Code},
				dialog.Item{Label: fmt.Sprintf("  code block %d (%s)", i+1, lang), Detail: preview(cb.Code)})
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		msg := msgs[i]
		if msg == last || strings.TrimSpace(msg.Text) == "" {
			continue
		}
		var what string
		switch msg.Role {
		case chat.RoleUser:
			what = "your message"
		case chat.RoleAssistant:
			what = "an answer"
		case chat.RoleError:
			what = "an error"
		default:
			what = "a note"
		}
		add(choice{what, msg.Text}, dialog.Item{Label: what, Detail: preview(msg.Text)})
	}
	seen := map[string]bool{}
	for i := len(msgs) - 1; i >= 0; i-- {
		msg := msgs[i]
		for _, p := range append(append([]string{}, msg.Files...), msg.Attachments...) {
			if seen[p] {
				continue
			}
			seen[p] = true
			add(choice{p, p}, dialog.Item{Label: p})
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

// preview is the first line of s with its size, for a picker's detail.
func preview(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return fmt.Sprintf("%s · %d chars", chat.Clip(first, 50), len([]rune(s)))
}

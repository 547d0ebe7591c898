package prompt

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// onPaste inserts the paste; if it turns out to be only file paths (the
// check stats files, so it runs in a command), they become @references.
func (p *Prompt) onPaste(msg tea.PasteMsg) tea.Cmd {
	before := p.Value()
	cmd := p.update(msg)
	after := p.Value()
	content := msg.Content
	expand, confine := p.complete.expand, p.complete.Confine
	check := func() tea.Msg {
		return PasteChecked{before: before, after: after, paths: pastedPaths(content, expand, confine)}
	}
	return tea.Batch(cmd, check)
}

// PasteChecked says whether a paste was file paths; it comes back to the
// prompt's Update from the command that checked them.
type PasteChecked struct {
	before, after string
	paths         []string
}

// onPasteChecked turns a paste of file paths into @references.
func (p *Prompt) onPasteChecked(msg PasteChecked) Event {
	if len(msg.paths) == 0 || p.Value() != msg.after {
		return nil // not paths, or the prompt changed meanwhile: leave it
	}
	// The paste is what after has in place of before's text at the cursor.
	pre := commonPrefixLen(msg.before, msg.after)
	suf := commonSuffixLen(msg.before[pre:], msg.after[pre:])
	var refs []string
	for _, path := range msg.paths {
		refs = append(refs, attachRef(path))
	}
	head := msg.after[:pre]
	sep := ""
	if head != "" && !strings.HasSuffix(head, " ") && !strings.HasSuffix(head, "\n") {
		sep = " "
	}
	p.Set(head + sep + strings.Join(refs, " ") + " " + msg.after[len(msg.after)-suf:])
	return Attached{Files: len(msg.paths)}
}

func commonPrefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

package prompt

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

func (p *Prompt) resetCompletion() {
	p.comp = completion{}
	p.compIdx = -1
	p.inserted = ""
}

// FileCompletion carries a file completion computed off the UI goroutine
// (it reads a directory) back to the prompt's Update. A result for text
// the user has typed past is dropped.
type FileCompletion struct {
	// before is the text it was computed for.
	before string
	comp   completion
	// tab is set when Tab asked for it: apply it once it arrives.
	tab bool
}

// RefreshHints recomputes the candidates shown under the prompt. Command
// names come from memory; file names come back later as a FileCompletion.
func (p *Prompt) RefreshHints() tea.Cmd {
	c := p.complete
	p.compIdx, p.inserted = -1, ""
	before := p.beforeCursor()
	if c.isFileWord(before) {
		return c.filesCmd(before, false)
	}
	p.comp = c.complete(before)
	return nil
}

// onFiles applies a file completion that arrived.
func (p *Prompt) onFiles(msg FileCompletion) tea.Cmd {
	if p.beforeCursor() != msg.before {
		return nil // typed on meanwhile
	}
	p.comp, p.compIdx, p.inserted = msg.comp, -1, ""
	if msg.tab {
		return p.applyTab()
	}
	return nil
}

// Tab completes: to the only candidate, else to the candidates' common
// prefix, else (pressed again) cycling through them. File names are read
// in the returned command and applied when its FileCompletion arrives.
func (p *Prompt) Tab() tea.Cmd {
	c := p.complete
	if p.compIdx < 0 {
		before := p.beforeCursor()
		if c.isFileWord(before) {
			return c.filesCmd(before, true)
		}
		p.comp = c.complete(before)
	}
	return p.applyTab()
}

// applyTab completes with the candidates in p.comp.
func (p *Prompt) applyTab() tea.Cmd {
	comp := p.comp
	switch {
	case len(comp.items) == 0:
		return nil
	case len(comp.items) == 1:
		repl := comp.items[0]
		dir := strings.HasSuffix(repl, "/")
		if !dir {
			repl += " "
		}
		p.replaceBeforeCursor(len(comp.word), repl)
		p.resetCompletion()
		if dir { // walked into a directory: show what is in it
			return p.RefreshHints()
		}
	case p.compIdx < 0:
		if cp := comp.commonPrefix(); len(cp) > len(comp.word) {
			p.replaceBeforeCursor(len(comp.word), cp)
			return p.RefreshHints()
		}
		p.compIdx = 0
		p.replaceBeforeCursor(len(comp.word), comp.items[0])
		p.inserted = comp.items[0]
	default:
		p.compIdx = (p.compIdx + 1) % len(comp.items)
		p.replaceBeforeCursor(len(p.inserted), comp.items[p.compIdx])
		p.inserted = comp.items[p.compIdx]
	}
	return nil
}

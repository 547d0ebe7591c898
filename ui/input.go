package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chorusai/chorus/ui/theme"
)

// maxInputRows is the most rows the prompt grows to before it scrolls.
const maxInputRows = 6

// promptInput is the multi-line prompt: a textarea that grows with its
// content, the history of sent prompts for Up/Down recall, and the
// completion state for Tab.
type promptInput struct {
	ta textarea.Model

	history []string
	// histPos is the index in history being shown, len(history) when the
	// user is not browsing.
	histPos int
	// draft is what was typed before browsing started.
	draft string

	comp    completion
	compIdx int // candidate shown while cycling with Tab; -1 when not cycling
	// inserted is the candidate Tab put before the cursor while cycling.
	inserted string
}

func newPromptInput(km theme.KeyMap) promptInput {
	ta := textarea.New()
	ta.Placeholder = "Ask anything — @file attaches, /help lists commands"
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = maxInputRows
	ta.MaxContentHeight = 100000
	ta.CharLimit = 0
	ta.SetVirtualCursor(false)
	s := textarea.DefaultDarkStyles()
	s.Focused.CursorLine = lipgloss.NewStyle()
	s.Focused.Base = lipgloss.NewStyle()
	s.Blurred.Base = lipgloss.NewStyle()
	s.Focused.Placeholder = lipgloss.NewStyle().Foreground(lipgloss.Color("245"))
	s.Blurred.Placeholder = s.Focused.Placeholder
	ta.SetStyles(s)
	// The app owns Enter, the newline keys, paging and the chat-wide
	// shortcuts; the textarea keeps its editing keys.
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys(km.Keys(theme.ActNewline)...))
	ta.KeyMap.PageUp = key.NewBinding(key.WithDisabled())
	ta.KeyMap.PageDown = key.NewBinding(key.WithDisabled())
	ta.KeyMap.InputBegin = key.NewBinding(key.WithKeys("alt+<"))
	ta.KeyMap.InputEnd = key.NewBinding(key.WithKeys("alt+>"))
	ta.KeyMap.Paste = key.NewBinding(key.WithDisabled()) // terminals paste with bracketed paste
	ta.Focus()
	return promptInput{ta: ta, compIdx: -1}
}

func (p *promptInput) setWidth(w int) { p.ta.SetWidth(w) }

func (p *promptInput) value() string { return p.ta.Value() }

func (p *promptInput) empty() bool { return strings.TrimSpace(p.ta.Value()) == "" }

func (p *promptInput) set(s string) {
	p.ta.SetValue(s)
	p.ta.MoveToEnd()
	p.resetCompletion()
}

func (p *promptInput) clear() { p.set("") }

// remember adds a sent prompt to the history (no consecutive duplicates)
// and leaves browsing.
func (p *promptInput) remember(s string) {
	if s = strings.TrimSpace(s); s != "" && (len(p.history) == 0 || p.history[len(p.history)-1] != s) {
		p.history = append(p.history, s)
	}
	p.histPos = len(p.history)
	p.draft = ""
}

// browsing reports whether Up/Down should walk the history: the prompt is
// empty, or still shows the entry recalled last.
func (p *promptInput) browsing() bool {
	if p.empty() {
		return true
	}
	return p.histPos < len(p.history) && p.ta.Value() == p.history[p.histPos]
}

// recall moves through the history by delta (-1 older, +1 newer). It
// returns false when there is nothing to move to.
func (p *promptInput) recall(delta int) bool {
	if len(p.history) == 0 {
		return false
	}
	if p.histPos > len(p.history) {
		p.histPos = len(p.history)
	}
	if p.histPos == len(p.history) {
		p.draft = p.ta.Value()
	}
	next := p.histPos + delta
	if next < 0 || next > len(p.history) {
		return false
	}
	p.histPos = next
	if next == len(p.history) {
		p.ta.SetValue(p.draft)
	} else {
		p.ta.SetValue(p.history[next])
	}
	p.ta.MoveToEnd()
	return true
}

// beforeCursor returns the text of the prompt before the cursor.
func (p *promptInput) beforeCursor() string {
	lines := strings.Split(p.ta.Value(), "\n")
	row := min(p.ta.Line(), len(lines)-1)
	var b strings.Builder
	for i := 0; i < row; i++ {
		b.WriteString(lines[i])
		b.WriteByte('\n')
	}
	r := []rune(lines[row])
	b.WriteString(string(r[:min(p.ta.Column(), len(r))]))
	return b.String()
}

// replaceBeforeCursor swaps the last n bytes before the cursor for s,
// keeping what follows the cursor.
func (p *promptInput) replaceBeforeCursor(n int, s string) {
	before := p.beforeCursor()
	after := strings.TrimPrefix(p.ta.Value(), before)
	newBefore := before[:len(before)-n] + s
	p.ta.SetValue(newBefore + after)
	// Put the cursor back after the inserted text.
	p.ta.MoveToBegin()
	lines := strings.Split(newBefore, "\n")
	for range len(lines) - 1 {
		p.ta.CursorDown()
	}
	p.ta.SetCursorColumn(len([]rune(lines[len(lines)-1])))
}

func (p *promptInput) resetCompletion() {
	p.comp = completion{}
	p.compIdx = -1
	p.inserted = ""
}

// compMsg carries a file completion computed off the UI goroutine (it
// reads a directory). before is the text it was computed for; a stale
// result is dropped.
type compMsg struct {
	before string
	comp   completion
	// tab is set when Tab asked for it: apply it once it arrives.
	tab bool
}

// refreshHints recomputes the candidates shown under the prompt. Command
// names come from memory; file names come back later as a compMsg.
func (p *promptInput) refreshHints(c completer) tea.Cmd {
	p.compIdx, p.inserted = -1, ""
	before := p.beforeCursor()
	if c.isFileWord(before) {
		return c.filesCmd(before, false)
	}
	p.comp = c.complete(before)
	return nil
}

// onComp applies a file completion that arrived.
func (p *promptInput) onComp(c completer, msg compMsg) tea.Cmd {
	if p.beforeCursor() != msg.before {
		return nil // typed on meanwhile
	}
	p.comp, p.compIdx, p.inserted = msg.comp, -1, ""
	if msg.tab {
		return p.applyTab(c)
	}
	return nil
}

// tab completes: to the only candidate, else to the candidates' common
// prefix, else (pressed again) cycling through them.
func (p *promptInput) tab(c completer) tea.Cmd {
	if p.compIdx < 0 {
		before := p.beforeCursor()
		if c.isFileWord(before) {
			return c.filesCmd(before, true)
		}
		p.comp = c.complete(before)
	}
	return p.applyTab(c)
}

// applyTab completes with the candidates in p.comp.
func (p *promptInput) applyTab(c completer) tea.Cmd {
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
			return p.refreshHints(c)
		}
	case p.compIdx < 0:
		if cp := comp.commonPrefix(); len(cp) > len(comp.word) {
			p.replaceBeforeCursor(len(comp.word), cp)
			return p.refreshHints(c)
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

// update forwards a message to the textarea.
func (p *promptInput) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.ta, cmd = p.ta.Update(msg)
	return cmd
}

// height is the number of rows the prompt takes.
func (p *promptInput) height() int { return p.ta.Height() }

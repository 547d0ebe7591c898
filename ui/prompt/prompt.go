package prompt

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chorusai/chorus/ui/theme"
)

// MaxRows is the most rows the prompt grows to before it scrolls.
const MaxRows = 6

// Prompt is the multi-line prompt: a textarea that grows with its content,
// the history of sent prompts for Up/Down recall, and the completion state
// for Tab.
type Prompt struct {
	ta   textarea.Model
	keys theme.KeyMap
	// complete knows the names Tab completes.
	complete Completer

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

// New returns an empty, focused prompt that reads keys with km and
// completes with c.
func New(km theme.KeyMap, c Completer) *Prompt {
	ta := textarea.New()
	ta.Placeholder = "Ask anything — @file attaches, /help lists commands"
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = MaxRows
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
	return &Prompt{ta: ta, keys: km, complete: c, compIdx: -1}
}

// Event is what a message did to the prompt that its parent acts on: Send
// or Attached. Most messages do nothing of the kind (a nil Event).
type Event interface{ promptEvent() }

// Send is the user sending the prompt: Text is what it holds, trimmed and
// never empty. The prompt keeps the text until the parent calls Sent, so a
// request that cannot go yet is not lost.
type Send struct{ Text string }

// Attached says a paste of file paths became @references (Files of them).
type Attached struct{ Files int }

func (Send) promptEvent()     {}
func (Attached) promptEvent() {}

// Update handles a key press, a paste, the prompt's own messages
// (FileCompletion, PasteChecked) and the textarea's (cursor blinks). Keys
// the parent binds to other actions must not reach it.
func (p *Prompt) Update(msg tea.Msg) (Event, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p.onKey(msg)
	case tea.PasteMsg:
		return nil, p.onPaste(msg)
	case PasteChecked:
		return p.onPasteChecked(msg), nil
	case FileCompletion:
		return nil, p.onFiles(msg)
	}
	return nil, p.update(msg)
}

// onKey sends, completes, walks the history, or edits.
func (p *Prompt) onKey(k tea.KeyPressMsg) (Event, tea.Cmd) {
	km := p.keys
	switch {
	case km.Matches(k, theme.ActSend):
		if text := strings.TrimSpace(p.Value()); text != "" {
			return Send{Text: text}, nil
		}
		return nil, nil
	case km.Matches(k, theme.ActComplete):
		return nil, p.Tab()
	case km.Matches(k, theme.ActHistoryPrev) && p.browsing() && p.ta.Line() == 0:
		if p.recall(-1) {
			return nil, nil
		}
	case km.Matches(k, theme.ActHistoryNext) && p.browsing() && p.histPos < len(p.history):
		p.recall(+1)
		return nil, nil
	}
	cmd := p.update(k)
	return nil, tea.Batch(cmd, p.RefreshHints())
}

// SetSize fits the prompt to width columns and at most maxRows rows.
func (p *Prompt) SetSize(width, maxRows int) {
	p.ta.MaxHeight = maxRows
	p.ta.SetWidth(width)
}

// SetCharLimit bounds what the prompt holds, in characters (typed keys
// included, which a client without bracketed paste sends one by one); 0
// means no bound.
func (p *Prompt) SetCharLimit(n int) { p.ta.CharLimit = n }

// Height is the number of rows the prompt takes.
func (p *Prompt) Height() int { return p.ta.Height() }

// View draws the prompt.
func (p *Prompt) View() string { return p.ta.View() }

// Cursor is where the terminal's cursor goes, relative to the prompt's
// first row; nil when it is hidden.
func (p *Prompt) Cursor() *tea.Cursor { return p.ta.Cursor() }

// Value is the prompt's text.
func (p *Prompt) Value() string { return p.ta.Value() }

// Empty reports whether the prompt holds nothing but blanks.
func (p *Prompt) Empty() bool { return strings.TrimSpace(p.ta.Value()) == "" }

// Set replaces the text, with the cursor at its end.
func (p *Prompt) Set(s string) {
	p.ta.SetValue(s)
	p.ta.MoveToEnd()
	p.resetCompletion()
}

// Clear empties the prompt.
func (p *Prompt) Clear() { p.Set("") }

// Sent records text as sent: it joins the history, and the prompt is
// cleared if it still shows it (the user may have typed on meanwhile).
func (p *Prompt) Sent(text string) {
	p.remember(text)
	if strings.TrimSpace(p.Value()) == text {
		p.Clear()
	}
}

// Candidates are the completion labels the hint line shows, and the one
// Tab put in the prompt (-1 when not cycling).
func (p *Prompt) Candidates() (labels []string, selected int) {
	return p.comp.labels, p.compIdx
}

// remember adds a sent prompt to the history (no consecutive duplicates)
// and leaves browsing.
func (p *Prompt) remember(s string) {
	if s = strings.TrimSpace(s); s != "" && (len(p.history) == 0 || p.history[len(p.history)-1] != s) {
		p.history = append(p.history, s)
	}
	p.histPos = len(p.history)
	p.draft = ""
}

// browsing reports whether Up/Down should walk the history: the prompt is
// empty, or still shows the entry recalled last.
func (p *Prompt) browsing() bool {
	if p.Empty() {
		return true
	}
	return p.histPos < len(p.history) && p.ta.Value() == p.history[p.histPos]
}

// recall moves through the history by delta (-1 older, +1 newer). It
// returns false when there is nothing to move to.
func (p *Prompt) recall(delta int) bool {
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
func (p *Prompt) beforeCursor() string {
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
func (p *Prompt) replaceBeforeCursor(n int, s string) {
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

// update forwards a message to the textarea.
func (p *Prompt) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.ta, cmd = p.ta.Update(msg)
	return cmd
}

package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/prompt"
	"github.com/chorusai/chorus/ui/theme"
)

// Update routes one message to the handler of its concern; the handlers
// live with their concern's files (turns.go, server.go, session.go, …).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m, m.onResize(msg)
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.PasteMsg:
		return m, m.onPaste(msg)
	case PasteTooLarge:
		m.pasteTooLarge(msg.Size, msg.Limit)
		return m, nil
	case prompt.PasteChecked, prompt.FileCompletion:
		return m, m.onPromptEvent(m.input.Update(msg))
	case submitMsg:
		return m, m.onSubmit(msg)
	case pumpMsg:
		return m, m.onPumpMsg(msg)
	case tickMsg:
		return m, m.onTick(msg)
	case dialog.EditorDone:
		return m, m.onEditorDone(msg)
	case prompt.Composed:
		return m, m.onComposed(msg)
	case serverMsg:
		return m, m.onServer(msg)
	case serverRetryMsg:
		return m, m.onServerRetry(msg)
	case modelsListMsg:
		m.onModelsList(msg)
		return m, nil
	case switchModelMsg:
		return m, m.onSwitchModel(msg)
	case previewMsg:
		m.onPreview(msg)
		return m, nil
	case loadedMsg:
		return m, m.onLoaded(msg)
	case sessionsMsg:
		m.onSessions(msg)
		return m, nil
	case saveDone:
		return m, m.onSaveDone(msg)
	case exportDone:
		return m, m.onExportDone(msg)
	case thumbMsg:
		return m, m.onThumb(msg)
	case viewerDone:
		return m, m.onViewerDone(msg)
	case playDone:
		return m, m.onPlayDone(msg)
	case openDone:
		return m, m.onOpenDone(msg)
	case deletedMsg:
		return m, m.onDeleted(msg)
	case tapeSaved:
		return m, m.onTapeSaved(msg)
	case drainMsg:
		return m, m.onDrain()
	case drainedMsg:
		return m, m.onDrained()
	}
	if m.dialog != nil {
		// A dialog's own messages (a list's search results, a cursor's
		// blink) come back here.
		return m, m.updateDialog(msg)
	}
	_, cmd := m.input.Update(msg)
	return m, cmd
}

// onKey routes a key press: to an open dialog first, then to the app's
// bindings, then to the prompt.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	afterCancel := m.cancelledByKey
	m.cancelledByKey = false
	if m.dialog != nil {
		if m.keys.Matches(k, theme.ActCancel) {
			return m.onDialogCancelKey()
		}
		return m.updateDialog(k)
	}
	m.notice = notice{}
	if m.keys.Matches(k, theme.ActCancel) {
		return m.onCancelKey(afterCancel)
	}
	for _, b := range appKeys {
		if m.keys.Matches(k, b.act) {
			return b.do(m)
		}
	}
	return m.onPromptEvent(m.input.Update(k))
}

// appKeys are the app's bindings besides Ctrl+C, each with its handler.
// The prompt's own (send, newline, complete, history) are not here: keys
// no binding claims go to the prompt.
var appKeys = []struct {
	act theme.Action
	do  func(m *Model) tea.Cmd
}{
	{theme.ActScrollUp, func(m *Model) tea.Cmd { m.chat.Scroll(max(1, m.chatHeight()-2)); return nil }},
	{theme.ActScrollDown, func(m *Model) tea.Cmd { m.chat.Scroll(-max(1, m.chatHeight()-2)); return nil }},
	{theme.ActScrollTop, func(m *Model) tea.Cmd { m.chat.ToTop(); return nil }},
	{theme.ActScrollBottom, func(m *Model) tea.Cmd { m.chat.Follow(); return nil }},
	{theme.ActCopyAnswer, (*Model).copyLastAnswer},
	{theme.ActCopyPick, (*Model).openCopyPicker},
	{theme.ActToggleRaw, (*Model).toggleRaw},
	{theme.ActTogglePanes, (*Model).togglePanes},
	{theme.ActNextPane, (*Model).nextPane},
	{theme.ActPaneUp, func(m *Model) tea.Cmd { m.panes.scrollBy(-3); return nil }},
	{theme.ActPaneDown, func(m *Model) tea.Cmd { m.panes.scrollBy(3); return nil }},
	{theme.ActPlayAudio, (*Model).togglePlay},
	{theme.ActViewImage, (*Model).viewLastImage},
	{theme.ActOpenFile, (*Model).openLastFile},
	{theme.ActExpand, (*Model).toggleDetails},
	{theme.ActZoomPane, (*Model).zoomPane},
	{theme.ActCompose, (*Model).compose},
	{theme.ActSuspend, func(*Model) tea.Cmd { return tea.Suspend }},
	{theme.ActHelp, (*Model).showHelp},
}

// onCancelKey: Ctrl+C cancels what runs (a turn, a pull, playback); on an
// idle, empty prompt it quits; otherwise it clears the prompt. Right after
// a Ctrl+C that cancelled something (afterCancel: no other key between) it
// does not quit but says the next one will: pressing it twice to stop a
// turn is common, and the turn may end between the two presses.
func (m *Model) onCancelKey(afterCancel bool) tea.Cmd {
	cancelKey := m.keys.Label(theme.ActCancel)
	switch {
	case m.running():
		m.cancelledByKey = true
		return m.cancelTurn()
	case m.pull != nil:
		m.cancelledByKey = true
		m.pull.cancel()
		m.flashWhile("stopping the pull…", pullActivity)
		return nil
	case m.play != nil:
		m.cancelledByKey = true
		m.play.cancel()
		return nil
	case !m.input.Empty():
		m.input.Clear()
		m.layout()
		m.flash("prompt cleared — "+cancelKey+" again on the empty prompt quits", false)
		return nil
	case afterCancel:
		m.flash("stopped — "+cancelKey+" again quits Chorus", false)
		return nil
	}
	return m.quit()
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}

package ui

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/prompt"
	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 8)
		m.layout()
		return m, m.requestThumbs()
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.PasteMsg:
		return m, m.onPaste(msg)
	case pumpMsg:
		if msg.turn < 0 {
			return m, m.onPullItems(msg.items)
		}
		return m, m.onPump(msg)
	case tickMsg:
		if m.running() && m.cur.ID == msg.turn {
			return m, tick(msg.turn)
		}
		return m, nil
	case ollamaMsg:
		return m, m.onOllama(msg)
	case ollamaRetryMsg:
		return m, m.onOllamaRetry(msg)
	case previewMsg:
		m.onPreview(msg)
		return m, nil
	case submitMsg:
		return m, m.onSubmit(msg)
	case prompt.PasteChecked:
		return m, m.onPromptEvent(m.input.Update(msg))
	case loadedMsg:
		return m, m.onLoaded(msg)
	case prompt.FileCompletion:
		return m, m.onPromptEvent(m.input.Update(msg))
	case thumbMsg:
		m.thumbs[msg.key] = msg.text
		if msg.text != "" {
			m.chat.InvalidatePath(msg.key.Path)
		}
		return m, nil
	case dialog.EditorDone:
		return m, m.onEditorDone(msg)
	case viewerDone:
		if msg.err != nil {
			m.flash("cannot show the image: "+msg.err.Error(), true)
		}
		return m, nil
	case playDone:
		return m, m.onPlayDone(msg)
	case modelsListMsg:
		m.onModelsList(msg)
		return m, nil
	case switchModelMsg:
		return m, m.onSwitchModel(msg)
	case sessionsMsg:
		m.onSessions(msg)
		return m, nil
	case saveDone:
		if msg.err != nil {
			m.flash("the session was not saved: "+msg.err.Error(), true)
		}
		return m, nil
	case exportDone:
		if msg.err != nil {
			m.flash("export failed: "+msg.err.Error(), true)
		} else {
			m.say("Exported the transcript to `" + msg.path + "`.")
		}
		return m, nil
	case openDone:
		if msg.err != nil {
			m.flash(msg.err.Error(), true)
		}
		return m, nil
	}
	if m.dialog != nil {
		return m, nil
	}
	_, cmd := m.input.Update(msg)
	return m, cmd
}

// onKey routes a key press: to an open dialog first, then to the app's
// bindings, then to the prompt.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	afterCancel := m.cancelledByKey
	m.cancelledByKey = false
	if m.dialog != nil {
		if km.Matches(k, theme.ActCancel) {
			return m.onDialogCancelKey()
		}
		return m.updateDialog(k)
	}
	m.notice, m.noticeWhile = "", noActivity
	switch {
	case km.Matches(k, theme.ActCancel):
		return m.onCancelKey(afterCancel)
	case km.Matches(k, theme.ActScrollUp):
		m.chat.Scroll(max(1, m.chatHeight()-2))
		return nil
	case km.Matches(k, theme.ActScrollDown):
		m.chat.Scroll(-max(1, m.chatHeight()-2))
		return nil
	case km.Matches(k, theme.ActScrollTop):
		m.chat.ToTop()
		return nil
	case km.Matches(k, theme.ActScrollBottom):
		m.chat.Follow()
		return nil
	case km.Matches(k, theme.ActCopyAnswer):
		return m.copyLastAnswer()
	case km.Matches(k, theme.ActCopyPick):
		return m.openCopyPicker()
	case km.Matches(k, theme.ActToggleRaw):
		m.raw = !m.raw
		if m.raw {
			m.flash("showing the Markdown source — "+km.Label(theme.ActToggleRaw)+" renders it again", false)
		}
		return nil
	case km.Matches(k, theme.ActTogglePanes):
		m.panesShown = !m.panesShown
		m.layout()
		return m.requestThumbs()
	case km.Matches(k, theme.ActNextPane):
		m.paneTab = (m.paneTab + 1) % turnview.NumPanes
		m.tabPinned, m.paneScroll = true, 0
		if !m.panesShown {
			m.panesShown = true
			m.layout()
		}
		return nil
	case km.Matches(k, theme.ActPaneUp):
		m.paneScroll += 3
		return nil
	case km.Matches(k, theme.ActPaneDown):
		m.paneScroll = max(0, m.paneScroll-3)
		return nil
	case km.Matches(k, theme.ActPlayAudio):
		return m.togglePlay()
	case km.Matches(k, theme.ActViewImage):
		p := m.chat.LastFile(skills.Image)
		if p == "" {
			m.flash("no image in this chat yet", true)
			return nil
		}
		return m.viewImage(p)
	case km.Matches(k, theme.ActOpenFile):
		return m.openLastFile()
	case km.Matches(k, theme.ActHelp):
		m.openDialog(m.helpDialog(), nil)
		return nil
	}
	return m.onPromptEvent(m.input.Update(k))
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

// requestThumbs starts making the inline previews the chat needs at the
// current width.
func (m *Model) requestThumbs() tea.Cmd {
	if !m.images || m.media == nil {
		return nil
	}
	w := m.chatWidth() - 1 // the width messages render at
	var cmds []tea.Cmd
	for _, cm := range m.chat.Messages() {
		if !cm.Final {
			continue
		}
		for _, p := range chat.PreviewPaths(append(append([]string{}, cm.Attachments...), cm.Files...)) {
			k := chat.ThumbKeyFor(p, w, m.height)
			if _, ok := m.thumbs[k]; ok {
				continue
			}
			m.thumbs[k] = "" // pending: never ask twice
			cmds = append(cmds, makeThumb(m.media, k))
		}
	}
	return tea.Batch(cmds...)
}

// playState is audio playing in the background.
type playState struct {
	path   string
	cancel context.CancelFunc
}

type playDone struct {
	path string
	err  error
}

// togglePlay plays the newest audio file of the chat, or stops playback.
func (m *Model) togglePlay() tea.Cmd {
	if m.play != nil {
		m.play.cancel()
		return nil
	}
	p := m.chat.LastFile(skills.Audio)
	if p == "" {
		m.flash("no audio in this chat yet", true)
		return nil
	}
	if m.media == nil {
		m.flash("audio playback is not available", true)
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.play = &playState{path: p, cancel: cancel}
	m.flash(fmt.Sprintf("playing %s — %s stops", p, m.keys.Label(theme.ActPlayAudio)), false)
	mp := m.media
	// Play finds the player (ffplay, afplay, paplay, aplay) itself and says
	// what to install when there is none.
	return func() tea.Msg { return playDone{path: p, err: mp.Play(ctx, p)} }
}

func (m *Model) onPlayDone(msg playDone) tea.Cmd {
	stopped := m.play != nil && m.play.path == msg.path
	if stopped {
		m.play.cancel()
		m.play = nil
	}
	if msg.err != nil && !strings.Contains(msg.err.Error(), "stopped") {
		m.flash(msg.err.Error(), true)
	} else if stopped {
		m.flash("playback finished", false)
	}
	return nil
}

// openDone reports the system viewer's start.
type openDone struct{ err error }

// openLastFile opens the newest generated file with the desktop's viewer
// (xdg-open, open). Over ssh there is none; the OSC 8 link is the way.
func (m *Model) openLastFile() tea.Cmd {
	path := m.chat.LastMade()
	if path == "" {
		m.flash("no generated file in this chat yet", true)
		return nil
	}
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	if m.opts.Getenv("DISPLAY") == "" && m.opts.Getenv("WAYLAND_DISPLAY") == "" && runtime.GOOS != "darwin" {
		m.flash("no desktop viewer here (ssh?) — click the link or copy the path with "+m.keys.Label(theme.ActCopyPick), true)
		return nil
	}
	m.flash("opening "+path, false)
	return func() tea.Msg {
		bin, err := exec.LookPath(opener)
		if err != nil {
			return openDone{err: fmt.Errorf("cannot open %s: %s is not installed — click the link or copy the path instead", path, opener)}
		}
		cmd := exec.Command(bin, path)
		if err := cmd.Start(); err != nil {
			return openDone{err: fmt.Errorf("cannot open %s: %w", path, err)}
		}
		go cmd.Wait() //nolint:errcheck // the viewer lives on its own
		return openDone{}
	}
}

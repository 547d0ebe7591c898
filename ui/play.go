package ui

import (
	"context"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

// playState is audio playing in the background.
type playState struct {
	path   string
	cancel context.CancelFunc
}

// overSSH reports whether Chorus runs in an ssh session, where sound
// would play on the machine Chorus runs on, not on the user's.
func (m *Model) overSSH() bool {
	return m.opts.Getenv("SSH_CONNECTION") != "" || m.opts.Getenv("SSH_TTY") != ""
}

// hostName names the machine Chorus runs on, for "the sound would play
// on …".
func hostName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "the server"
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
	if m.opts.Remote == "" && m.overSSH() && m.sshPlayAsked != p {
		// Chorus run in an ssh login: playing would make a sound in a
		// machine room, and nothing where the user sits. Offer the file
		// instead; a second press plays it there anyway (an ssh session
		// to one's own desktop). A chat served by `chorus serve --ssh`
		// (Options.Remote) never plays here: remoteMedia says so.
		m.sshPlayAsked = p
		m.chat.Add(&chat.Message{Role: chat.RoleSystem, Final: true, Files: []string{p},
			Text: fmt.Sprintf("This is an ssh session: playing would sound on **%s**, the machine Chorus runs on, not on yours. "+
				"Open the file where you are instead (the link below, or copy the path with `%s`); press `%s` again to play it on %s anyway.",
				hostName(), m.keys.Label(theme.ActCopyPick), m.keys.Label(theme.ActPlayAudio), hostName())})
		m.chat.Follow()
		return nil
	}
	m.sshPlayAsked = ""
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

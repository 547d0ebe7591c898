package ui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/theme"
)

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

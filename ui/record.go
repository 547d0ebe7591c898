package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// A recording under way (/record FILE) is the chat service's: its engine
// copies the turns' controller and expert traffic, and the file is saved
// after every turn, so it is whole whenever the chat ends.

// tapeSaved reports the last save of a stopped recording.
type tapeSaved struct {
	path  string
	turns int
	err   error
}

// record starts recording to the file arg, or stops with "stop".
func (m *Model) record(arg string) tea.Cmd {
	path, turns := m.conv.Recording()
	switch strings.ToLower(arg) {
	case "":
		if path != "" {
			m.flash(fmt.Sprintf("recording to %s (%d turn(s) so far) — /record stop ends it", path, turns), false)
			return nil
		}
		m.flash("usage: /record FILE — records the next turns; chorus --replay FILE plays them back", true)
		return nil
	case "stop", "off", "end":
		return m.stopRecording()
	}
	if path != "" {
		m.flash("already recording to "+path+" — /record stop first", true)
		return nil
	}
	path = m.ws.expand(arg)
	if err := m.ws.check(path); err != nil {
		m.flash("cannot record: "+err.Error(), true)
		return nil
	}
	if err := m.conv.StartRecording(path); err != nil {
		m.flash("cannot record: "+err.Error(), true)
		return nil
	}
	m.flash("recording the next turns to "+path+" — /record stop ends it", false)
	return nil
}

// recording reports whether /record is on.
func (m *Model) recording() bool {
	path, _ := m.conv.Recording()
	return path != ""
}

// stopRecording gives the engine back its plain controller and endpoints
// and saves the recording one last time.
func (m *Model) stopRecording() tea.Cmd {
	if !m.recording() {
		m.flash("not recording — /record FILE starts", true)
		return nil
	}
	conv := m.conv
	return func() tea.Msg {
		path, n, err := conv.StopRecording()
		return tapeSaved{path: path, turns: n, err: err}
	}
}

// onTapeSaved reports where a stopped recording went, or why it was not
// saved.
func (m *Model) onTapeSaved(msg tapeSaved) tea.Cmd {
	switch {
	case msg.err != nil:
		m.flash("the recording was not saved: "+msg.err.Error(), true)
	case msg.turns == 0:
		m.flash("recording stopped — no turn was recorded, nothing written", false)
	default:
		m.say(fmt.Sprintf("Recorded %d turn(s) to `%s` — play them back with `chorus --replay %s`.", msg.turns, msg.path, msg.path))
	}
	return nil
}

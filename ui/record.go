package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/ui/theme"
)

// tape is a recording under way (/record FILE): the engine runs turns
// through rec, which copies their controller and expert traffic and is
// saved after every turn, so the file is whole whenever the chat ends.
type tape struct {
	rec *recording.Recorder
}

// tapeSaved reports a save of the recording.
type tapeSaved struct {
	path    string
	turns   int
	stopped bool
	err     error
}

// record starts recording to the file arg, or stops with "stop".
func (m *Model) record(arg string) tea.Cmd {
	switch strings.ToLower(arg) {
	case "":
		if m.tape != nil {
			m.flash(fmt.Sprintf("recording to %s (%d turn(s) so far) — /record stop ends it", m.tape.rec.Path(), m.tape.rec.Turns()), false)
			return nil
		}
		m.flash("usage: /record FILE — records the next turns; chorus --replay FILE plays them back", true)
		return nil
	case "stop", "off", "end":
		return m.stopRecording()
	}
	if m.tape != nil {
		m.flash("already recording to "+m.tape.rec.Path()+" — /record stop first", true)
		return nil
	}
	if m.running() {
		m.flash("a turn is running — start recording after it, or "+m.keys.Label(theme.ActCancel)+" to cancel it", true)
		return nil
	}
	path := m.ws.expand(arg)
	if err := m.ws.check(path); err != nil {
		m.flash("cannot record: "+err.Error(), true)
		return nil
	}
	rec := recording.NewRecorder(path, recording.Header{Chorus: m.opts.Version, Constraints: m.constraints, Now: m.now})
	m.eng = rec.Engine(m.eng)
	m.tape = &tape{rec: rec}
	m.flash("recording the next turns to "+path+" — /record stop ends it", false)
	return nil
}

// stopRecording gives the engine back its plain controller and endpoints
// and saves the recording one last time.
func (m *Model) stopRecording() tea.Cmd {
	if m.tape == nil {
		m.flash("not recording — /record FILE starts", true)
		return nil
	}
	if m.running() {
		m.flash("a turn is running — stop recording after it", true)
		return nil
	}
	rec := m.tape.rec
	m.eng = rec.Release(m.eng)
	m.tape = nil
	n := rec.Turns()
	if n == 0 {
		m.flash("recording stopped — no turn was recorded, nothing written", false)
		return nil
	}
	return func() tea.Msg { return tapeSaved{path: rec.Path(), turns: n, stopped: true, err: rec.Save()} }
}

// saveTape saves the recording after a turn.
func (m *Model) saveTape() tea.Cmd {
	if m.tape == nil || m.tape.rec.Turns() == 0 {
		return nil
	}
	rec := m.tape.rec
	n := rec.Turns()
	return func() tea.Msg { return tapeSaved{path: rec.Path(), turns: n, err: rec.Save()} }
}

// onTapeSaved reports a failed save, and where a stopped recording went.
func (m *Model) onTapeSaved(msg tapeSaved) tea.Cmd {
	switch {
	case msg.err != nil:
		m.flash("the recording was not saved: "+msg.err.Error(), true)
	case msg.stopped:
		m.say(fmt.Sprintf("Recorded %d turn(s) to `%s` — play them back with `chorus --replay %s`.", msg.turns, msg.path, msg.path))
	}
	return nil
}

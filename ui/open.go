package ui

import (
	"fmt"
	"os/exec"
	"runtime"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/ui/theme"
)

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
	if m.opts.Remote != "" {
		// A viewer started here would open on the server's screen, not
		// the user's: whatever their client claims about a display.
		m.flash("Chorus runs on another machine: click the link in the answer or copy the path with "+m.keys.Label(theme.ActCopyPick), true)
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
		cmd := exec.Command(bin, path) //nolint:noctx // the opened viewer outlives the chat
		if err := cmd.Start(); err != nil {
			return openDone{err: fmt.Errorf("cannot open %s: %w", path, err)}
		}
		go cmd.Wait() //nolint:errcheck // the viewer lives on its own
		return openDone{}
	}
}

// onOpenDone reports a viewer that did not start.
func (m *Model) onOpenDone(msg openDone) tea.Cmd {
	if msg.err != nil {
		m.flash(msg.err.Error(), true)
	}
	return nil
}

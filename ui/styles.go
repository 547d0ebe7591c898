package ui

import (
	"charm.land/lipgloss/v2"
)

// styles are the TUI's Lip Gloss styles. Colours are ANSI palette indices
// where the meaning matters (green for done, red for failed), so 16-colour
// terminals show them as intended; Bubble Tea downsamples the 256-colour
// greys and drops colour entirely under NO_COLOR. Nothing relies on colour
// alone: every state also has a glyph or a label.
type styles struct {
	userLabel, assistantLabel, systemLabel, errorLabel lipgloss.Style
	userBar, userText                                  lipgloss.Style
	meta, dim, faint, bold, accent                     lipgloss.Style
	ok, fail, warn, run, pending, skipped              lipgloss.Style
	ref, link                                          lipgloss.Style
	paneTitle, paneTitleActive, paneBorder             lipgloss.Style
	status, statusKey, statusGood, statusBad           lipgloss.Style
	inputBorder                                        lipgloss.Style
	dialog, dialogTitle, selected                      lipgloss.Style
	hint                                               lipgloss.Style
}

func newStyles() styles {
	grey := lipgloss.Color("245")
	darkGrey := lipgloss.Color("240")
	accent := lipgloss.Color("5") // magenta
	blue := lipgloss.Color("4")
	green := lipgloss.Color("2")
	red := lipgloss.Color("1")
	yellow := lipgloss.Color("3")
	cyan := lipgloss.Color("6")
	s := styles{}
	s.userLabel = lipgloss.NewStyle().Bold(true).Foreground(blue)
	s.assistantLabel = lipgloss.NewStyle().Bold(true).Foreground(accent)
	s.systemLabel = lipgloss.NewStyle().Bold(true).Foreground(grey)
	s.errorLabel = lipgloss.NewStyle().Bold(true).Foreground(red)
	s.userBar = lipgloss.NewStyle().Foreground(blue)
	s.userText = lipgloss.NewStyle()
	s.meta = lipgloss.NewStyle().Foreground(grey)
	s.dim = lipgloss.NewStyle().Foreground(grey)
	s.faint = lipgloss.NewStyle().Faint(true)
	s.bold = lipgloss.NewStyle().Bold(true)
	s.accent = lipgloss.NewStyle().Foreground(accent)
	s.ok = lipgloss.NewStyle().Foreground(green)
	s.fail = lipgloss.NewStyle().Foreground(red)
	s.warn = lipgloss.NewStyle().Foreground(yellow)
	s.run = lipgloss.NewStyle().Foreground(cyan)
	s.pending = lipgloss.NewStyle().Foreground(grey)
	s.skipped = lipgloss.NewStyle().Foreground(darkGrey)
	s.ref = lipgloss.NewStyle().Foreground(cyan).Underline(true)
	s.link = lipgloss.NewStyle().Underline(true)
	s.paneTitle = lipgloss.NewStyle().Foreground(grey)
	s.paneTitleActive = lipgloss.NewStyle().Bold(true).Reverse(true)
	s.paneBorder = lipgloss.NewStyle().Foreground(darkGrey)
	// The status bar has its own background; under NO_COLOR it is plain
	// text, still readable by its ✓/✗ and words.
	barBG := lipgloss.Color("236")
	s.status = lipgloss.NewStyle().Background(barBG).Foreground(lipgloss.Color("252"))
	s.statusKey = s.status.Bold(true).Foreground(accent)
	s.statusGood = s.status.Foreground(green)
	s.statusBad = s.status.Foreground(red).Bold(true)
	s.inputBorder = lipgloss.NewStyle().Foreground(darkGrey)
	s.dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1)
	s.dialogTitle = lipgloss.NewStyle().Bold(true).Foreground(accent)
	s.selected = lipgloss.NewStyle().Reverse(true)
	s.hint = lipgloss.NewStyle().Foreground(grey)
	return s
}

package theme

import (
	"charm.land/lipgloss/v2"
)

// Styles are the TUI's Lip Gloss styles. Colours are ANSI palette indices
// where the meaning matters (green for done, red for failed), so 16-colour
// terminals show them as intended; Bubble Tea downsamples the 256-colour
// greys and drops colour entirely under NO_COLOR. Nothing relies on colour
// alone: every state also has a glyph or a label.
type Styles struct {
	UserLabel, AssistantLabel, SystemLabel, ErrorLabel lipgloss.Style
	UserBar, UserText                                  lipgloss.Style
	Meta, Dim, Faint, Bold, Accent                     lipgloss.Style
	OK, Fail, Warn, Run, Pending, Skipped              lipgloss.Style
	Ref, Link                                          lipgloss.Style
	PaneTitle, PaneTitleActive, PaneBorder             lipgloss.Style
	Status, StatusKey, StatusGood, StatusBad           lipgloss.Style
	InputBorder                                        lipgloss.Style
	Dialog, DialogTitle, Selected                      lipgloss.Style
	Hint                                               lipgloss.Style
}

// NewStyles returns the styles of the TUI.
func NewStyles() Styles {
	grey := lipgloss.Color("245")
	darkGrey := lipgloss.Color("240")
	accent := lipgloss.Color("5") // magenta
	blue := lipgloss.Color("4")
	green := lipgloss.Color("2")
	red := lipgloss.Color("1")
	yellow := lipgloss.Color("3")
	cyan := lipgloss.Color("6")
	s := Styles{}
	s.UserLabel = lipgloss.NewStyle().Bold(true).Foreground(blue)
	s.AssistantLabel = lipgloss.NewStyle().Bold(true).Foreground(accent)
	s.SystemLabel = lipgloss.NewStyle().Bold(true).Foreground(grey)
	s.ErrorLabel = lipgloss.NewStyle().Bold(true).Foreground(red)
	s.UserBar = lipgloss.NewStyle().Foreground(blue)
	s.UserText = lipgloss.NewStyle()
	s.Meta = lipgloss.NewStyle().Foreground(grey)
	s.Dim = lipgloss.NewStyle().Foreground(grey)
	s.Faint = lipgloss.NewStyle().Faint(true)
	s.Bold = lipgloss.NewStyle().Bold(true)
	s.Accent = lipgloss.NewStyle().Foreground(accent)
	s.OK = lipgloss.NewStyle().Foreground(green)
	s.Fail = lipgloss.NewStyle().Foreground(red)
	s.Warn = lipgloss.NewStyle().Foreground(yellow)
	s.Run = lipgloss.NewStyle().Foreground(cyan)
	s.Pending = lipgloss.NewStyle().Foreground(grey)
	s.Skipped = lipgloss.NewStyle().Foreground(darkGrey)
	s.Ref = lipgloss.NewStyle().Foreground(cyan).Underline(true)
	s.Link = lipgloss.NewStyle().Underline(true)
	s.PaneTitle = lipgloss.NewStyle().Foreground(grey)
	s.PaneTitleActive = lipgloss.NewStyle().Bold(true).Reverse(true)
	s.PaneBorder = lipgloss.NewStyle().Foreground(darkGrey)
	// The status bar has its own background; under NO_COLOR it is plain
	// text, still readable by its ✓/✗ and words.
	barBG := lipgloss.Color("236")
	s.Status = lipgloss.NewStyle().Background(barBG).Foreground(lipgloss.Color("252"))
	s.StatusKey = s.Status.Bold(true).Foreground(accent)
	s.StatusGood = s.Status.Foreground(green)
	s.StatusBad = s.Status.Foreground(red).Bold(true)
	s.InputBorder = lipgloss.NewStyle().Foreground(darkGrey)
	s.Dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1)
	s.DialogTitle = lipgloss.NewStyle().Bold(true).Foreground(accent)
	s.Selected = lipgloss.NewStyle().Reverse(true)
	s.Hint = lipgloss.NewStyle().Foreground(grey)
	return s
}

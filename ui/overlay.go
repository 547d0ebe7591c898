package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// overlay draws box over screen (w×h cells) with lipgloss's compositor:
// the screen is one layer and the box a layer above it, centred over the
// first rows rows and cut to them. The box's layer is opaque — the cells
// it spans are cleared before it is drawn — so short lines of the box
// hide what is under them.
func overlay(screen string, w, h, rows int, box string) string {
	bl := strings.Split(box, "\n")
	if len(bl) > rows {
		bl = bl[:rows]
	}
	box = strings.Join(bl, "\n")
	x := max(0, (w-lipgloss.Width(box))/2)
	y := max(0, (rows-len(bl))/2)
	c := lipgloss.NewCanvas(w, h)
	c.Compose(lipgloss.NewCompositor(
		lipgloss.NewLayer(screen),
		lipgloss.NewLayer(box).X(x).Y(y).Z(1),
	))
	return c.Render()
}

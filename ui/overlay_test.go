package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestOverlayKeepsItsColumns: the dialog stands centred whatever is under
// it. A wide character that the box's edge cuts in half becomes a blank —
// spliced by hand, it was dropped and pulled the box, or the rest of the
// line, one column to the left.
func TestOverlayKeepsItsColumns(t *testing.T) {
	screen := strings.Join([]string{
		"0123456789",
		"世界世界世界世界世界", // every column boundary but the even ones splits a character
		"\x1b[1mbold\x1b[0m text",
		"status",
	}, "\n")
	box := "[A]\n[B]\n[C]"
	got := strings.Split(ansi.Strip(overlay(screen, 10, 4, 3, box)), "\n")
	want := []string{
		"012[A]6789",
		"世 [B]界世", // the box at columns 3–5, as on the other rows
		"bol[C]ext",
		"status",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("overlay:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A box taller than the rows it may cover is cut to them, and the
	// rows below (the status line) stay as they were.
	got = strings.Split(ansi.Strip(overlay(screen, 10, 4, 2, box)), "\n")
	if got[0] != "012[A]6789" || got[2] != "bold text" || got[3] != "status" {
		t.Errorf("a tall box over two rows:\n%s", strings.Join(got, "\n"))
	}
}

package demogif

import "strings"

// Color is a cell colour: the terminal's default, one of the 256 indexed
// colours, or a 24-bit RGB value. The zero Color is the default, so a
// cleared cell needs no initialisation.
type Color uint32

const (
	colorIndexed Color = 1 << 24
	colorRGB     Color = 2 << 24
)

// Indexed returns palette colour i (0–255).
func Indexed(i uint8) Color { return colorIndexed | Color(i) }

// RGB returns the 24-bit colour r, g, b.
func RGB(r, g, b uint8) Color { return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b) }

// IsDefault reports whether c is the terminal's default colour.
func (c Color) IsDefault() bool { return c == 0 }

// Attr is a set of SGR text attributes.
type Attr uint8

// The text attributes the renderer draws.
const (
	AttrBold Attr = 1 << iota
	AttrFaint
	AttrItalic
	AttrUnderline
	AttrReverse
	AttrInvisible
	AttrStrike
)

// Style is what SGR sets: colours and attributes.
type Style struct {
	FG, BG Color
	Attr   Attr
}

// Cell is one character cell. Wide marks the first cell of a wide rune
// and Cont the cell it covers. The zero Cell is a blank in the default
// colours; a blank has Rune 0 and draws as its background.
type Cell struct {
	Rune rune
	Wide bool
	Cont bool
	Style
}

// ScreenText returns the text of a snapshot the way [Screen.String] does:
// one line per row with trailing blanks trimmed and trailing empty rows
// dropped.
func ScreenText(lines [][]Cell) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		for _, c := range l {
			switch {
			case c.Cont:
			case c.Rune == 0:
				b.WriteByte(' ')
			default:
				b.WriteRune(c.Rune)
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

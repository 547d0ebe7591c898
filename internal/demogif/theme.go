package demogif

import (
	"image/color"
	"slices"
	"strings"
)

// Theme is a terminal colour scheme: the default colours, the cursor, and
// the 16 ANSI colours programs pick by number.
type Theme struct {
	Background, Foreground, Cursor color.RGBA
	ANSI                           [16]color.RGBA
}

func hex(s string) color.RGBA {
	var v [3]uint8
	for i := range v {
		v[i] = unhex(s[1+2*i])<<4 | unhex(s[2+2*i])
	}
	return color.RGBA{v[0], v[1], v[2], 0xff}
}

func unhex(c byte) uint8 {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

func theme(bg, fg, cursor string, ansi ...string) Theme {
	t := Theme{Background: hex(bg), Foreground: hex(fg), Cursor: hex(cursor)}
	for i, a := range ansi {
		t.ANSI[i] = hex(a)
	}
	return t
}

// themes are the colour schemes a tape can Set, under VHS's names; "" is
// VHS's default.
var themes = map[string]Theme{
	"": theme("#171717", "#dddddd", "#dddddd",
		"#282a2e", "#d74e6f", "#31bb71", "#d3e561", "#8056ff", "#ed61d7", "#04d7d7", "#bfbfbf",
		"#4d4d4d", "#fe5f86", "#00d787", "#ebff71", "#9b79ff", "#ff7aea", "#00fefe", "#e6e6e6"),
	"Catppuccin Mocha": theme("#1e1e2e", "#cdd6f4", "#f5e0dc",
		"#45475a", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#f5c2e7", "#94e2d5", "#bac2de",
		"#585b70", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#f5c2e7", "#94e2d5", "#a6adc8"),
	"Catppuccin Latte": theme("#eff1f5", "#4c4f69", "#dc8a78",
		"#5c5f77", "#d20f39", "#40a02b", "#df8e1d", "#1e66f5", "#ea76cb", "#179299", "#acb0be",
		"#6c6f85", "#d20f39", "#40a02b", "#df8e1d", "#1e66f5", "#ea76cb", "#179299", "#bcc0cc"),
}

func themeNames() string {
	var names []string
	for n := range themes {
		if n != "" {
			names = append(names, `"`+n+`"`)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ") + " and VHS's default (no Set Theme)"
}

// RGBA resolves a cell colour against the theme; fg says which default
// applies.
func (t *Theme) RGBA(c Color, fg bool) color.RGBA {
	switch c & 0xff000000 {
	case colorRGB:
		return color.RGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 0xff}
	case colorIndexed:
		return t.indexed(uint8(c))
	}
	if fg {
		return t.Foreground
	}
	return t.Background
}

// indexed returns one of xterm's 256 colours: the theme's 16, then the
// 6×6×6 cube and the grey ramp.
func (t *Theme) indexed(i uint8) color.RGBA {
	switch {
	case i < 16:
		return t.ANSI[i]
	case i < 232:
		i -= 16
		level := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return color.RGBA{level(i / 36), level(i / 6 % 6), level(i % 6), 0xff}
	default:
		g := 8 + 10*(i-232)
		return color.RGBA{g, g, g, 0xff}
	}
}

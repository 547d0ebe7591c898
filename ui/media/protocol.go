package media

import (
	"fmt"
	"strconv"
	"strings"
)

// Protocol is a way of showing an image in a terminal.
type Protocol int

// The protocols, best first. None shows a text label instead of the image.
const (
	// None prints a one-line label naming the file.
	None Protocol = iota
	// HalfBlocks draws "▀" cells with 24-bit colours; it works in every
	// colour terminal, tmux and screen included.
	HalfBlocks
	// Kitty is the kitty graphics protocol (kitty, Ghostty, WezTerm).
	Kitty
	// ITerm2 is iTerm2's OSC 1337 inline images (iTerm2, WezTerm, mintty).
	ITerm2
	// Sixel is DEC sixel graphics (foot, mlterm, xterm -ti vt340, Konsole).
	Sixel
)

// EnvImages is the environment variable that overrides detection.
const EnvImages = "CHORUS_IMAGES"

var protocolNames = map[Protocol]string{
	None:       "off",
	HalfBlocks: "blocks",
	Kitty:      "kitty",
	ITerm2:     "iterm2",
	Sixel:      "sixel",
}

// String returns the name CHORUS_IMAGES uses for p.
func (p Protocol) String() string {
	if s, ok := protocolNames[p]; ok {
		return s
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// ParseProtocol reads a CHORUS_IMAGES value: kitty, iterm2, sixel, blocks or
// off (a few common spellings are accepted too). "auto" and "" are not
// protocols; they report ok=false with a nil error so callers can detect.
func ParseProtocol(s string) (p Protocol, ok bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return None, false, nil
	case "kitty":
		return Kitty, true, nil
	case "iterm2", "iterm", "iterm.app":
		return ITerm2, true, nil
	case "sixel", "sixels":
		return Sixel, true, nil
	case "blocks", "halfblocks", "half-blocks", "block", "ansi":
		return HalfBlocks, true, nil
	case "off", "none", "no", "false", "0", "text":
		return None, true, nil
	}
	return None, false, fmt.Errorf("%s=%q is not a graphics protocol — use kitty, iterm2, sixel, blocks, off or auto", EnvImages, s)
}

// Detect chooses a protocol from environment variables read through getenv
// (os.Getenv in the app, a map in tests). The rules are in the package
// documentation. An unknown CHORUS_IMAGES value is ignored here; validate it
// with ParseProtocol to tell the user.
func Detect(getenv func(string) string) Protocol {
	if getenv == nil {
		return HalfBlocks
	}
	if p, ok, err := ParseProtocol(getenv(EnvImages)); ok && err == nil {
		return p
	}
	if getenv("NO_COLOR") != "" {
		return None
	}
	term := strings.ToLower(getenv("TERM"))
	prog := strings.ToLower(getenv("TERM_PROGRAM"))
	if term == "dumb" {
		return None
	}
	if getenv("TMUX") != "" || getenv("STY") != "" || strings.HasPrefix(term, "tmux") || strings.HasPrefix(term, "screen") || prog == "tmux" {
		return HalfBlocks
	}
	switch {
	case term == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "":
		return Kitty
	case prog == "ghostty" || term == "xterm-ghostty" || getenv("GHOSTTY_RESOURCES_DIR") != "":
		return Kitty
	case prog == "iterm.app" || strings.EqualFold(getenv("LC_TERMINAL"), "iTerm2"):
		return ITerm2
	case prog == "wezterm" || term == "wezterm":
		return ITerm2
	case prog == "mintty" || prog == "rio" || term == "rio":
		return ITerm2
	case strings.Contains(term, "sixel"), hasAnyPrefix(term, "foot", "mlterm", "yaft", "contour"), konsoleSixel(getenv("KONSOLE_VERSION")):
		return Sixel
	}
	return HalfBlocks
}

// konsoleSixel reports whether a KONSOLE_VERSION (e.g. "230805") is 22.04
// or later, the first release that draws sixels.
func konsoleSixel(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 220400
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

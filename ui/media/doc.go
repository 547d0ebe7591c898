// Package media shows images inline in the terminal and plays audio, and
// degrades cleanly wherever the terminal or the machine cannot.
//
// # Images
//
// Detect picks a graphics protocol from the environment alone. It never
// queries the terminal: a query that gets no answer (a dumb multiplexer, a
// slow ssh link) would hang the UI or leak the late reply into the input.
// The first matching row wins:
//
//	CHORUS_IMAGES=kitty|iterm2|sixel|blocks|off   that protocol, always (the user knows best;
//	                                              use it for tmux passthrough, see Passthrough)
//	NO_COLOR set and non-empty                    None: a one-line label with the file path
//	TERM=dumb                                     None
//	TMUX set, TERM=tmux*/screen*, STY set         HalfBlocks (graphics escapes do not survive
//	                                              a multiplexer without passthrough)
//	TERM=xterm-kitty, KITTY_WINDOW_ID set         Kitty
//	TERM_PROGRAM=ghostty, TERM=xterm-ghostty      Kitty
//	TERM_PROGRAM=iTerm.app, LC_TERMINAL=iTerm2    ITerm2
//	TERM_PROGRAM=WezTerm, TERM=wezterm            ITerm2 (WezTerm also speaks kitty, but its
//	                                              iTerm2 support is the complete one)
//	TERM_PROGRAM=mintty, TERM_PROGRAM=rio         ITerm2
//	TERM contains "sixel"; TERM=foot*, mlterm*,   Sixel
//	yaft*, contour*; Konsole ≥ 22.04
//	anything else                                 HalfBlocks
//
// Images are content, not colour, so NO_COLOR does not hide them silently:
// it turns them into a label naming the file, which a reader can open, rather
// than a grid of coloured cells that NO_COLOR users asked not to get.
//
// Over ssh the detection stays as it is: what matters is the terminal at the
// far end, and the variables that describe it (TERM, and LC_TERMINAL, which
// iTerm2 sends and sshd accepts by default) travel with the connection.
// TERM_PROGRAM usually does not, so an ssh session from WezTerm or Ghostty
// falls back to half-blocks unless CHORUS_IMAGES says otherwise.
//
// Render decodes png, jpeg, gif, webp, bmp and tiff, fits the image into a
// box of terminal cells keeping its aspect ratio (Fit), and returns the
// escape sequence or text to print. Images too large to preview, unreadable
// files and unknown formats give errors that say so; nothing panics.
//
// The wire formats come from github.com/charmbracelet/x/ansi: the kitty
// encoder and its chunking (ansi/kitty), the iTerm2 File sequence
// (ansi/iterm2), the sixel frame, raster attributes and colour registers
// (ansi, ansi/sixel), and tmux's and GNU screen's passthrough envelopes.
// This package keeps what the library lacks: detection from the
// environment, fitting to cells, half-block rendering, finding the
// sequences in a rendering to wrap each for a multiplexer, and the sixel
// pixels — median cut with Floyd–Steinberg dithering, which keeps
// gradients smooth (3× less error seen at a distance than the library's
// nearest-colour encoder, in a quarter of the time: dither_test.go) and
// leaves transparent pixels undrawn.
//
// # Audio
//
// Play runs the first installed player among ffplay, afplay, paplay and aplay
// (aplay for wav only), directly and without a shell, with its output
// captured so it never scribbles over the UI, and stops it when the context
// is cancelled. When none is installed the error says what to install; when
// one runs but finds no sound device (a server, a container), the error
// wraps ErrNoSoundDevice and says so.
package media

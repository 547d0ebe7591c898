// Package demogif renders a VHS tape (github.com/charmbracelet/vhs) into an
// animated GIF without VHS's ttyd and browser: it runs the tape's shell in a
// pseudo-terminal, types the tape's keys at the tape's pace, feeds what the
// programs write into Charm's terminal emulator (github.com/charmbracelet/x/vt,
// read as cells by [Screen]) and rasterises the screen with the Go Mono
// fonts whenever it changes.
//
// The tape is read by VHS's own lexer and parser, so what VHS rejects is
// rejected here; of what VHS accepts, this package plays the subset that
// Chorus's docs/demo.tape uses ([ParseTape] names any other command and its
// line). The same tape renders with real VHS where ttyd is installed
// (go tool task demo) and with this package everywhere else
// (go tool task demo:gif).
package demogif

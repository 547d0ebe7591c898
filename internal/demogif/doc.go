// Package demogif renders a VHS tape (github.com/charmbracelet/vhs) into an
// animated GIF without VHS's ttyd and browser: it runs the tape's shell in a
// pseudo-terminal, types the tape's keys at the tape's pace, feeds what the
// programs write into a small terminal emulator ([Screen]) and rasterises the
// screen with the Go Mono fonts whenever it changes.
//
// It understands the subset of the tape language that Chorus's
// docs/demo.tape uses ([ParseTape] names any other command and its line), so
// the same tape renders with real VHS where ttyd is installed
// (go tool task demo) and with this package everywhere else
// (go tool task demo:gif).
package demogif

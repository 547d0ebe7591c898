//go:build !unix

package media

// CellPixels reports ok=false: this platform has no portable way to read a
// terminal's pixel size without querying the terminal.
func CellPixels(fd uintptr) (w, h int, ok bool) { return 0, 0, false }

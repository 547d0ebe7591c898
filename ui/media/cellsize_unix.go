//go:build unix

package media

import "golang.org/x/sys/unix"

// CellPixels returns the size in pixels of one cell of the terminal on fd
// (os.Stdout.Fd()), from the window size the kernel keeps for it. It asks
// the kernel, not the terminal, so it cannot hang; ok is false where the
// terminal does not report pixel sizes (many set them to zero).
func CellPixels(fd uintptr) (w, h int, ok bool) {
	ws, err := unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 || ws.Row == 0 || ws.Xpixel == 0 || ws.Ypixel == 0 {
		return 0, 0, false
	}
	w, h = int(ws.Xpixel)/int(ws.Col), int(ws.Ypixel)/int(ws.Row)
	if w < 2 || h < 2 {
		return 0, 0, false
	}
	return w, h, true
}

//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// keyMode makes the terminal f hand over each key as it is typed, without
// echoing it — the line discipline's canonical mode and echo off — and
// returns what puts it back. Ctrl+C still interrupts (ISIG stays on), and
// output is unchanged: the progress log written meanwhile reads as before.
func keyMode(f *os.File) (restore func(), err error) {
	fd := int(f.Fd())
	old, err := getTermios(fd)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := setTermios(fd, &t); err != nil {
		return nil, err
	}
	return func() { _ = setTermios(fd, old) }, nil
}

func getTermios(fd int) (*unix.Termios, error) { return unix.IoctlGetTermios(fd, ioctlGetTermios) }

func setTermios(fd int, t *unix.Termios) error { return unix.IoctlSetTermios(fd, ioctlSetTermios, t) }

//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli

import "os"

// termMode is the terminal f's local modes (canonical, echo, signals).
func termMode(f *os.File) (uint64, error) {
	t, err := getTermios(int(f.Fd()))
	if err != nil {
		return 0, err
	}
	return uint64(t.Lflag), nil
}

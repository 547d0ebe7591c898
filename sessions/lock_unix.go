//go:build unix

package sessions

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes the sessions directory's exclusive lock, which every
// Chorus process's saves share: flock on the directory itself, released
// by the kernel if the process dies holding it, so a crash never leaves
// the store locked.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock %s: %w", dir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

//go:build unix

package mcpserve

import (
	"errors"
	"os"
	"syscall"
)

// lockRoot holds an exclusive flock on a process's folder while the
// process runs: the kernel releases it when the process ends however it
// ends, so a folder nobody holds is one a dead process left.
func lockRoot(root string) (unlock func(), err error) {
	f, err := os.Open(root)
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
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// inUse reports whether a running process holds the folder p: its lock
// cannot be taken. A folder that cannot be opened is left alone.
func inUse(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

//go:build unix

// The Unix facilities a few tests need — a named pipe (FIFO), whether a
// process still exists, a kill, a child's peak memory — here so that the
// test files build for every GOOS Chorus ships for (CI vets the darwin and
// windows builds). Where one is missing it returns errors.ErrUnsupported,
// and the tests that need it skip.

package testkit

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// Mkfifo makes a named pipe at path, as mkfifo(3).
func Mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// ProcessExists reports whether process pid exists: kill -0 sends nothing and
// fails with ESRCH once it is gone (EPERM: it exists, another user's).
func ProcessExists(pid int) (bool, error) {
	err := syscall.Kill(pid, 0)
	switch {
	case err == nil, errors.Is(err, syscall.EPERM):
		return true, nil
	case errors.Is(err, syscall.ESRCH):
		return false, nil
	}
	return false, err
}

// KillProcess sends SIGKILL to process pid.
func KillProcess(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// PeakRSSOf is the most memory, in bytes, that the exited process ps held
// resident (getrusage's ru_maxrss: KiB, but bytes on macOS).
func PeakRSSOf(ps *os.ProcessState) (int64, error) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, errors.ErrUnsupported
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss), nil
	}
	return int64(ru.Maxrss) * 1024, nil
}

//go:build unix

package command_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// gone reports whether process pid has ended: no such process, or (where
// /proc tells) a zombie its parent has not reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false // no /proc (macOS): the signal's answer is all there is
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// pid (comm) STATE …: comm may hold spaces, so read after the last ')'.
	s := string(stat)
	rest := s[strings.LastIndexByte(s, ')')+1:]
	return strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

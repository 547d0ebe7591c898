//go:build !unix

package command_test

import "os"

// gone reports whether process pid has ended. Where processes are not
// signalled (Windows), a process that can no longer be opened has ended.
func gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	_ = p.Release()
	return false
}

//go:build unix

package sshd

import "syscall"

// fileLimit returns the process's open-file limit (RLIMIT_NOFILE), raising
// its soft limit to the hard one first where it is lower (Go does so at
// start on most systems; a limit set on the process later would undo it).
func fileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	if rl.Cur < rl.Max {
		raised := rl
		raised.Cur = rl.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			rl = raised
		}
	}
	if rl.Cur > 1<<30 {
		return 1 << 30
	}
	return int(rl.Cur)
}

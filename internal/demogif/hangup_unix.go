//go:build unix

package demogif

import (
	"os"
	"os/exec"
	"time"

	"golang.org/x/sys/unix"
)

// hangUp ends the shell and the job in the foreground, as closing a
// terminal window does: SIGHUP to both, then SIGKILL for whatever is
// still there a few seconds later.
func hangUp(ptmx *os.File, cmd *exec.Cmd) {
	groups := []int{cmd.Process.Pid}
	if conn, err := ptmx.SyscallConn(); err == nil {
		_ = conn.Control(func(fd uintptr) {
			if fg, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil && fg > 0 {
				groups = append(groups, fg)
			}
		})
	}
	for _, g := range groups {
		_ = unix.Kill(-g, unix.SIGHUP)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(3 * time.Second):
		for _, g := range groups {
			_ = unix.Kill(-g, unix.SIGKILL)
		}
		<-waited
	}
	_ = ptmx.Close()
}

//go:build unix

package command

import (
	"os/exec"
	"syscall"
)

// procAttr starts a program in a process group of its own, so that what
// it starts in turn is killed with it.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the program's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

//go:build !unix

package command

import (
	"os/exec"
	"syscall"
)

// procAttr has nothing to add where there are no process groups.
func procAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the program.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

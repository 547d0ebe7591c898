//go:build unix && !linux

package mcp

import (
	"os/exec"
	"syscall"
)

// procAttr puts a stdio server in its own process group, so stopping it
// stops what it started.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends SIGTERM (or SIGKILL) to the server's process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

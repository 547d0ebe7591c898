package mcp

import (
	"os/exec"
	"syscall"
)

// procAttr puts a stdio server in its own process group (so stopping it
// stops what it started, and the terminal's Ctrl+C reaches Chorus, which
// cancels the call, not the server) and has the kernel end it when
// Chorus dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

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

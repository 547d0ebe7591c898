package ollamatest

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, killed when the
// thread that started it ends (launch holds that thread until the server
// exits): a test binary that dies without stopping its server — a panic,
// a -timeout — takes the server with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills cmd's process group: the server and what it forked.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

//go:build !unix

package mcp

import (
	"os/exec"
	"syscall"
)

func procAttr() *syscall.SysProcAttr { return nil }

// signalGroup ends the server process.
func signalGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

//go:build !unix

package ollamatest

import "os/exec"

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// killGroup kills the server alone where there are no process groups.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

//go:build !unix

package demogif

import (
	"os"
	"os/exec"
)

// hangUp ends the shell where there are no process groups to signal (a
// tape plays in a Unix terminal; this only lets the package build for
// every GOOS Chorus ships for).
func hangUp(ptmx *os.File, cmd *exec.Cmd) {
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	_ = ptmx.Close()
}

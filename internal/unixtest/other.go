//go:build !unix

package unixtest

import (
	"errors"
	"os"
)

// Mkfifo fails: this system has no named pipes in its file system.
func Mkfifo(string, uint32) error { return errors.ErrUnsupported }

// Exists cannot tell here.
func Exists(int) (bool, error) { return false, errors.ErrUnsupported }

// Kill cannot signal here.
func Kill(int) error { return errors.ErrUnsupported }

// PeakRSS cannot tell here.
func PeakRSS(*os.ProcessState) (int64, error) { return 0, errors.ErrUnsupported }

//go:build !unix

// What unix.go gives tests, where the system lacks it.

package testkit

import (
	"errors"
	"os"
)

// Mkfifo fails: this system has no named pipes in its file system.
func Mkfifo(string, uint32) error { return errors.ErrUnsupported }

// ProcessExists cannot tell here.
func ProcessExists(int) (bool, error) { return false, errors.ErrUnsupported }

// KillProcess cannot signal here.
func KillProcess(int) error { return errors.ErrUnsupported }

// PeakRSSOf cannot tell here.
func PeakRSSOf(*os.ProcessState) (int64, error) { return 0, errors.ErrUnsupported }

//go:build !unix

package sshd_test

import "time"

// cpuTime is unknown here: the load benchmark reports 0.
func cpuTime() time.Duration { return 0 }

//go:build unix

package mcpserve

import "github.com/chorusai/chorus/dirlock"

// lockRoot holds an exclusive flock on a process's folder while the
// process runs: the kernel releases it when the process ends however it
// ends, so a folder nobody holds is one a dead process left.
func lockRoot(root string) (unlock func(), err error) { return dirlock.Lock(root) }

// inUse reports whether a running process holds the folder p: its lock
// cannot be taken. A folder that cannot be opened is left alone.
func inUse(p string) bool { return dirlock.Held(p) }

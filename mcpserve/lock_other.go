//go:build !unix

package mcpserve

import (
	"os"
	"time"
)

// staleAfter is how long a folder must have been left unchanged before a
// start takes it for one a dead process left, where there is no flock.
const staleAfter = 24 * time.Hour

// lockRoot has nothing to hold without flock: a folder is judged by its
// age (inUse).
func lockRoot(string) (unlock func(), err error) { return func() {}, nil }

// inUse reports whether the folder p changed within staleAfter.
func inUse(p string) bool {
	st, err := os.Stat(p)
	return err != nil || time.Since(st.ModTime()) < staleAfter
}

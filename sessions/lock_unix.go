//go:build unix

package sessions

import "github.com/chorusai/chorus/dirlock"

// lockDir takes the sessions directory's exclusive lock, which every
// Chorus process's saves share: flock on the directory itself, released
// by the kernel if the process dies holding it, so a crash never leaves
// the store locked.
func lockDir(dir string) (unlock func(), err error) { return dirlock.Lock(dir) }

//go:build !unix

package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// lockStale is how old a lock file must be before it counts as left by a
// process that died holding it: far longer than any save takes.
const lockStale = 30 * time.Second

// lockDir takes the sessions directory's exclusive lock, which every
// Chorus process's saves share: a lock file created exclusively, removed
// on unlock; one older than lockStale is broken.
func lockDir(dir string) (unlock func(), err error) {
	p := filepath.Join(dir, tempPrefix+"lock")
	deadline := time.Now().Add(2 * lockStale)
	for {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(p) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("cannot lock %s: %w", dir, err)
		}
		if fi, serr := os.Stat(p); serr == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(p)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("cannot lock %s: %s is held — remove it if no Chorus is running", dir, p)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

//go:build unix

package dirlock

import (
	"path/filepath"
	"testing"
	"time"
)

func TestLockHoldsTheFolderUntilReleased(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if Held(dir) {
		t.Fatal("a folder nobody locked is held")
	}
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(dir) {
		t.Fatal("a locked folder is not held")
	}
	second := make(chan func())
	go func() {
		u, err := Lock(dir)
		if err != nil {
			t.Error(err)
		}
		second <- u
	}()
	select {
	case <-second:
		t.Fatal("a second Lock did not wait for the first's release")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	u := <-second
	if u == nil {
		return
	}
	u()
	if Held(dir) {
		t.Fatal("a released folder is still held")
	}
}

func TestMissingFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gone")
	if _, err := Lock(dir); err == nil {
		t.Fatal("Lock of a missing folder succeeded")
	}
	if !Held(dir) {
		t.Fatal("a folder that cannot be opened is not counted as held")
	}
}

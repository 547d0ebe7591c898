//go:build unix

package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestUnixFacilities: Mkfifo makes a pipe, ProcessExists sees a live process and not
// a reaped one, KillProcess ends one, PeakRSSOf reads its memory in bytes.
func TestUnixFacilities(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "p")
	if err := Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("Mkfifo made %v (%v), want a named pipe", fi, err)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep here: %v", err)
	}
	pid := cmd.Process.Pid
	if alive, err := ProcessExists(pid); !alive || err != nil {
		t.Fatalf("ProcessExists(%d) of a running sleep = %v, %v", pid, alive, err)
	}
	if err := KillProcess(pid); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if rss, err := PeakRSSOf(cmd.ProcessState); err != nil || rss < 64<<10 || rss > 1<<30 {
		t.Errorf("PeakRSSOf of sleep = %d bytes, %v; want between 64 KiB and 1 GiB", rss, err)
	}
	if alive, err := ProcessExists(pid); alive || err != nil {
		t.Errorf("ProcessExists(%d) of a killed, reaped sleep = %v, %v", pid, alive, err)
	}
}

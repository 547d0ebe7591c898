//go:build unix

package unixtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFacilities: Mkfifo makes a pipe, Exists sees a live process and not
// a reaped one, Kill ends one, PeakRSS reads its memory in bytes.
func TestFacilities(t *testing.T) {
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
	if alive, err := Exists(pid); !alive || err != nil {
		t.Fatalf("Exists(%d) of a running sleep = %v, %v", pid, alive, err)
	}
	if err := Kill(pid); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if rss, err := PeakRSS(cmd.ProcessState); err != nil || rss < 64<<10 || rss > 1<<30 {
		t.Errorf("PeakRSS of sleep = %d bytes, %v; want between 64 KiB and 1 GiB", rss, err)
	}
	if alive, err := Exists(pid); alive || err != nil {
		t.Errorf("Exists(%d) of a killed, reaped sleep = %v, %v", pid, alive, err)
	}
}

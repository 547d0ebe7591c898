package cli

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
)

// TestRunSecondInterruptEndsAStuckRun: when `chorus run` cannot wind down
// after Ctrl+C — here its stdout is a pipe nobody reads, so writing the
// answer blocks — a second Ctrl+C ends it, as in any command-line program.
func TestRunSecondInterruptEndsAStuckRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	bin := chorusBinary(t)
	chunks := make([]string, 4000)
	for i := range chunks {
		chunks[i] = strings.Repeat("answer ", 15) + "\n"
	}
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		return fakeollama.Reply{Chunks: chunks} // 480 KB: far more than a pipe holds
	})
	cmd := exec.Command(bin, "run", "hi")
	cmd.Env = e.childEnv()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	capacity, _, errno := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), 1032 /* F_GETPIPE_SZ */, 0)
	if errno != 0 {
		t.Skipf("cannot read the pipe size: %v", errno)
	}
	// The pipe is full when it holds within a page of its capacity and has
	// not grown for a while: a pipe with a few bytes free still takes the
	// next small write, and a Ctrl+C then finds chorus not yet stuck.
	var lastN int32 = -1
	var lastChange time.Time
	full := func() bool {
		var n int32
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, r.Fd(), syscall.TIOCINQ /* FIONREAD */, uintptr(unsafe.Pointer(&n)))
		if errno != 0 {
			return false
		}
		if n != lastN {
			lastN, lastChange = n, time.Now()
			return false
		}
		return uintptr(n)+4096 > capacity && time.Since(lastChange) >= 300*time.Millisecond
	}

	// Wait until the pipe is full, so writing the answer blocks; then
	// interrupt until the process ends. An external process gives nothing
	// to wait on but its state, so it is looked at every 50 ms.
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var sent int
	for {
		select {
		case err := <-exited:
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if sent < 2 {
				t.Fatalf("chorus ended after %d interrupts (%v) before it was stuck", sent, err)
			}
			if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
				t.Fatalf("chorus ended with %v, want death by the second SIGINT", err)
			}
			return
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("chorus still running after %d interrupts", sent)
		case <-tick.C:
			if sent == 0 && !full() {
				continue
			}
			_ = cmd.Process.Signal(syscall.SIGINT)
			sent++
		}
	}
}

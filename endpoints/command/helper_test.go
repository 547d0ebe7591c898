package command_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/skills"
)

// helperEnv names what the test binary does when a declared program runs
// it (TestHelperProcess): its environment is the allow-list plus the
// declaration's env, so the mode travels there.
const helperEnv = "COMMAND_HELPER"

// TestHelperProcess is the program the declared-program tests declare:
// the test binary itself, run as `command.test -test.run=^TestHelperProcess$
// -- ARGS…`. It does nothing in a normal test run.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	os.Exit(helper(mode, args))
}

func helper(mode string, args []string) int {
	switch mode {
	case "argv": // its arguments and stdin, as JSON
		in, _ := io.ReadAll(os.Stdin)
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"args": args, "stdin": string(in)})
	case "cat": // the file args[0] as the argv mode's stdin
		b, _ := os.ReadFile(args[0])
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"args": args[1:], "stdin": string(b)})
	case "env":
		_ = json.NewEncoder(os.Stdout).Encode(os.Environ())
	case "hang": // a child in its group, its pid in args[0]/pids, then nothing
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			return 2
		}
		_ = os.WriteFile(filepath.Join(args[0], "pids"), []byte(fmt.Sprint(os.Getpid(), " ", child.Process.Pid)), 0o600)
		select {}
	case "flood":
		line := []byte(strings.Repeat("y", 1023) + "\n")
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				return 0 // keeps going would be a program that ignores EPIPE: the kill stops it
			}
		}
	case "slots": // how many runs were going at once, by files in args[0]
		mine := filepath.Join(args[0], strconv.Itoa(os.Getpid()))
		_ = os.WriteFile(mine, nil, 0o600)
		most := 0
		for range 10 {
			entries, _ := os.ReadDir(args[0])
			most = max(most, len(entries))
			time.Sleep(10 * time.Millisecond)
		}
		_ = os.Remove(mine)
		fmt.Println(most)
	case "fail":
		fmt.Fprintln(os.Stderr, "loading model")
		fmt.Fprintln(os.Stderr, "\x1b[31mdisk on fire\x1b[0m  ")
		fmt.Fprintln(os.Stderr, "")
		return 3
	case "write": // args[0]: the file to write args[1] to
		_ = os.WriteFile(args[0], []byte(args[1]), 0o600)
	case "named": // writes args[1] into args[0] (its outputs folder), then prints where
		p := filepath.Join(args[0], "result.txt")
		_ = os.WriteFile(p, []byte(args[1]), 0o600)
		fmt.Println("wrote")
		fmt.Println(p)
	case "print": // prints args[0]: a path it claims to have written
		fmt.Println(args[0])
	case "wavinfo": // the sample rate and channels of the WAV file args[0]
		b, err := os.ReadFile(args[0])
		if err != nil || len(b) < 44 {
			return 4
		}
		fmt.Printf("%s %d Hz %d ch\n", filepath.Ext(args[0]), binary.LittleEndian.Uint32(b[24:28]), binary.LittleEndian.Uint16(b[22:24]))
	default:
		return 5
	}
	return 0
}

// helperProgram declares the test binary as a program doing task in mode,
// with args after "--".
func helperProgram(t *testing.T, name, task, mode string, args ...string) skills.Program {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// GORACE: a race-enabled test binary otherwise sleeps a second as it
	// exits. GOCOVERDIR: a test binary built with -cover otherwise ends
	// its stderr with a warning, where the tests read the program's last
	// line.
	env := map[string]string{helperEnv: mode, "GORACE": "atexit_sleep_ms=0", "GOCOVERDIR": t.TempDir()}
	return skills.Program{Name: name, Program: self, Tasks: []string{task}, Env: env,
		Args: append([]string{"-test.run=^TestHelperProcess$", "--"}, args...)}
}

// catalog is the embedded catalog, parsed once for the package's tests.
var catalog = sync.OnceValues(skills.Embedded)

// waitGone waits a little for pid to end.
func waitGone(pid int) bool {
	for range 100 {
		if gone(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

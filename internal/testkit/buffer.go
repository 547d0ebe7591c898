package testkit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Buffer is a bytes.Buffer that several goroutines may write and read at
// once: what a server logs, what a client's terminal or a process printed,
// read while it is still being written.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p under the lock, so a reader never sees half a write.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SavedTurns reads the turns of the one session file that pattern (a
// filepath.Glob pattern) matches, as JSON objects; anything but one file
// fails the test.
func SavedTurns(tb testing.TB, pattern string) []map[string]any {
	tb.Helper()
	files, _ := filepath.Glob(pattern)
	if len(files) != 1 {
		tb.Fatalf("sessions saved matching %s: %v, want one", pattern, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		tb.Fatal(err)
	}
	var sess struct{ Turns []map[string]any }
	if err := json.Unmarshal(b, &sess); err != nil {
		tb.Fatal(err)
	}
	return sess.Turns
}

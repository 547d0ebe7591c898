package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFileRotates: a record that would take the file past its cap moves
// the file to chorus.log.1 (replacing an older one) and starts a new one.
func TestLogFileRotates(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), logFileName)
	f := &logFile{path: path, max: 100}
	rec := strings.Repeat("x", 39) + "\n" // 40 bytes
	for i := range 7 {
		if _, err := f.Write([]byte(rec)); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	// 40+40 fit; the third rotates; again at the fifth and the seventh.
	cur, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path + ".1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 40 || len(old) != 80 {
		t.Fatalf("current %d bytes, rotated %d bytes; want 40 and 80", len(cur), len(old))
	}
	if _, err := os.Stat(path + ".2"); err == nil {
		t.Fatal("more than one old file is kept")
	}
}

// TestOpenLogFallsBackToDiscard: when the state directory cannot be made,
// the logger discards instead of failing.
func TestOpenLogFallsBackToDiscard(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	log, path := openLog(filepath.Join(blocker, "chorus"), true)
	if path != "" || log == nil {
		t.Fatalf("openLog = %v, %q", log, path)
	}
	log.Info("goes nowhere") // must not panic
}

// TestLogFileRedactsURLSecrets: a record quoting a configured URL — an MCP
// server's with ?token=, a controller's with a password — reaches
// chorus.log with the secrets hidden, as everywhere else.
func TestLogFileRedactsURLSecrets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), logFileName)
	f := &logFile{path: path, max: 1 << 20}
	rec := `level=WARN msg="mcp server not started" error="not reachable at https://mcp.example.com/mcp?token=log-tok-1&region=eu (refused)" host=http://admin:log-pw-2@gpu:11434` + "\n"
	if n, err := f.Write([]byte(rec)); err != nil || n != len(rec) {
		t.Fatalf("write: %d, %v", n, err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "log-tok-1") || strings.Contains(string(b), "log-pw-2") || !strings.Contains(string(b), "?token=REDACTED&region=eu") {
		t.Fatalf("chorus.log holds %q", b)
	}
}

package cli

import (
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/chorusai/chorus/text"
)

// logFileName is the log file in config.Env.StateDir().
const logFileName = "chorus.log"

// maxLogBytes caps the log file: past it the file becomes chorus.log.1
// (replacing the previous one) and a new one starts, so a long-lived
// install keeps at most two files' worth.
const maxLogBytes = 10 << 20

// logFile appends records to the log file. Each record opens, appends and
// closes: records are few (stages and calls, never tokens), nothing has to
// be closed on any way out of the program, and two Chorus processes (the
// TUI and a `chorus run` beside it) both write whole records to whichever
// file is current, even across a rotation.
type logFile struct {
	path string
	max  int64

	mu sync.Mutex // orders this process's records and rotations
}

// Write appends one record, rotating the file first when the record would
// take it past max. Errors go back to slog, which drops them: a full disk
// must not stop a turn.
func (f *logFile) Write(p []byte) (int, error) {
	// A configured URL in a record may carry a password: it never reaches
	// the file. slog wants len(p) back, whatever was written.
	rec := p
	if r := text.RedactURLs(string(p)); r != string(p) {
		rec = []byte(r)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if st, err := os.Stat(f.path); err == nil && st.Size() > 0 && st.Size()+int64(len(p)) > f.max {
		os.Rename(f.path, f.path+".1") // best effort: on failure the file just grows
	}
	fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	_, err = fh.Write(rec)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// openLog returns the logger that writes to dir/chorus.log (dir made with
// mode 0700, the file 0600) at Info level, or Debug with debug. When the
// file cannot be written the logger discards: logging never breaks the app.
// The path is "" then.
func openLog(dir string, debug bool) (*slog.Logger, string) {
	discard := slog.New(slog.DiscardHandler)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return discard, ""
	}
	path := filepath.Join(dir, logFileName)
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return discard, ""
	}
	fh.Close()
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	h := slog.NewTextHandler(&logFile{path: path, max: maxLogBytes}, &slog.HandlerOptions{Level: level})
	// Several processes may share the file; the pid tells their records apart.
	return slog.New(h).With(slog.Int("pid", os.Getpid())), path
}

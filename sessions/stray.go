package sessions

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// strayAge is how old a temporary file must be before it is removed even
// when its writer's pid seems alive (the pid may have been reused).
const strayAge = 24 * time.Hour

// sweepStray removes the temporary files that saves killed before their
// rename left in dir: those whose writing process is gone, and any older
// than strayAge. A save in progress in another process keeps its file.
func sweepStray(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, tempPrefix) || !strings.HasSuffix(name, ".tmp") {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := e.Info()
		if err != nil {
			continue
		}
		pid, ok := writerPID(name)
		if ok && pid != os.Getpid() && !alive(pid) || time.Since(info.ModTime()) > strayAge {
			os.Remove(p)
		}
	}
}

// writerPID reads the pid from a temporary file's name,
// ".<id>.<pid>.<random>.tmp".
func writerPID(name string) (int, bool) {
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(name, tempPrefix), ".tmp"), ".")
	if len(parts) < 3 {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[len(parts)-2])
	return pid, err == nil && pid > 0
}

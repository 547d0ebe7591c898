package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// startEnv is the environment the test binary started with. The chorus
// binary is built with it, so a test that already moved XDG_CACHE_HOME
// (and with it Go's build cache) does not compile everything again.
var startEnv = os.Environ()

// builtEnv names a chorus binary already built, for a test binary that
// runs this package's tests again (TestEndToEndOnOpenAIKind): linking it
// once more cost seconds of CPU.
const builtEnv = "CHORUS_TEST_BUILT_BINARY"

// built is the chorus binary the end-to-end tests run, built once per
// test binary: each of them building its own cost a link (or, after a
// moved cache, a full compile) every time.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// chorusBinary builds the chorus command once and returns its path; a
// failed build fails every test that asks for it, with go build's output.
func chorusBinary(tb testing.TB) string {
	tb.Helper()
	buildBinary()
	if built.err != nil {
		tb.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

// buildBinary builds the chorus command, once; TestMain starts it early
// in a whole run, so the link overlaps the first tests instead of holding
// up the one that asks first.
func buildBinary() {
	built.once.Do(func() {
		if p := os.Getenv(builtEnv); p != "" {
			built.path = p
			return
		}
		built.dir, built.err = os.MkdirTemp("", "chorus-test-bin-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "chorus")
		// -w: no DWARF (no test debugs the binary), a third less to link.
		cmd := exec.Command("go", "build", "-ldflags=-w", "-o", built.path, "..")
		cmd.Env = startEnv
		built.out, built.err = cmd.CombinedOutput()
	})
}

// removeBinary deletes the built binary's folder; TestMain calls it after
// the tests ran.
func removeBinary() {
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}

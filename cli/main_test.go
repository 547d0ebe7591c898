package cli

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/internal/ollamatest"
)

// waitingTests is how many of this package's parallel tests run at once
// for each CPU when -test.parallel is not given (go test's default is one
// per CPU). They mostly wait — on the chorus binary and the MCP servers
// they start, on real programs, on a real Ollama, on fakes that answer
// late — and use a core for about two thirds of their time: at one per
// CPU the package took 68 s on two cores for 49 s of CPU.
const waitingTests = 4

func TestMain(m *testing.M) {
	// This test binary doubles as a misbehaving MCP server.
	mcptest.FakeMain()
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(waitingTests*runtime.GOMAXPROCS(0)))
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" && !testing.Short() {
		// A whole run: about twenty tests run the built binary.
		go buildBinary()
	}
	code := m.Run()
	built.once.Do(func() {}) // a build still running finishes before its folder goes
	removeBinary()
	ollamatest.StopShared()
	os.Exit(code)
}

// Package mcptest finds the real MCP programs the tests drive: the
// reference servers @modelcontextprotocol/server-everything,
// @modelcontextprotocol/server-filesystem and
// @modelcontextprotocol/server-memory and the official TypeScript SDK
// @modelcontextprotocol/sdk, installed from npm into a test-owned folder (never a committed node_modules). Tests that
// need them skip, saying how to install them, when they are missing.
package mcptest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The pinned versions .ci/run installs.
const (
	EverythingVersion = "2026.8.31"
	FilesystemVersion = "2026.8.31"
	MemoryVersion     = "2026.8.31"
	SDKVersion        = "1.32.2"
)

// Dir is the folder the npm packages are installed in: CHORUS_MCP_NODE,
// else ~/.cache/chorus-test/mcp-node.
func Dir() string {
	if d := os.Getenv("CHORUS_MCP_NODE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "chorus-test", "mcp-node")
}

// InstallHint is how to install what the tests need.
func InstallHint() string {
	return "install Node.js (apt-get install nodejs npm) and the pinned packages: npm install --prefix " + Dir() +
		" @modelcontextprotocol/server-everything@" + EverythingVersion + " @modelcontextprotocol/server-filesystem@" + FilesystemVersion +
		" @modelcontextprotocol/server-memory@" + MemoryVersion + " @modelcontextprotocol/sdk@" + SDKVersion +
		" (.ci/run does it; CHORUS_MCP_NODE picks another folder)"
}

// Node returns the node binary, skipping the test when there is none.
func Node(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH: " + InstallHint())
	}
	return p
}

// Everything returns the command line that runs the reference server
// (its dist/index.js under node), skipping the test when it is missing.
func Everything(t testing.TB) (node string, script string) {
	t.Helper()
	node = Node(t)
	script = filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Skip("@modelcontextprotocol/server-everything is not installed: " + InstallHint())
	}
	return node, script
}

// Filesystem returns the command line that runs the reference file system
// server (its dist/index.js under node; its arguments are the folders it
// may touch), skipping the test when it is missing.
func Filesystem(t testing.TB) (node string, script string) {
	t.Helper()
	return server(t, "server-filesystem")
}

// Memory returns the command line that runs the reference knowledge-graph
// server (its dist/index.js under node; MEMORY_FILE_PATH in its
// environment says where it keeps the graph), skipping the test when it is
// missing.
func Memory(t testing.TB) (node string, script string) {
	t.Helper()
	return server(t, "server-memory")
}

// server is node and the script of the reference server package name.
func server(t testing.TB, name string) (node string, script string) {
	t.Helper()
	node = Node(t)
	script = filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Skip("@modelcontextprotocol/" + name + " is not installed: " + InstallHint())
	}
	return node, script
}

// SDK returns the folder whose node_modules holds the TypeScript SDK,
// skipping the test when it is missing.
func SDK(t testing.TB) string {
	t.Helper()
	Node(t)
	if _, err := os.Stat(filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("@modelcontextprotocol/sdk is not installed: " + InstallHint())
	}
	return Dir()
}

// EverythingHTTP starts the reference server's streamable HTTP (or,
// with transport "sse", its HTTP+SSE) transport on a free loopback port
// and returns its URL; the server is stopped when the test ends.
func EverythingHTTP(t testing.TB, transport string) string {
	t.Helper()
	node, script := Everything(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, script, transport)
	cmd.Env = serverEnv(os.Environ(), port)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := "127.0.0.1:" + itoa(port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %s: %s", transport, addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	path := "/mcp"
	if transport == "sse" {
		path = "/sse"
	}
	return "http://" + addr + path
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n > 0 || i == len(b) {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// serverVars are the variables of the test's environment a server
// EverythingHTTP starts inherits — what node runs with, the locale's
// LC_* too — as endpoints.ChildEnv gives a program Chorus starts: the
// developer's tokens and keys (HF_TOKEN, OPENAI_API_KEY, CHORUS_*_KEY)
// never reach it (its printEnv tool would answer with them).
var serverVars = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR"}

// serverEnv is the environment of a server listening on port: own's
// serverVars, then PORT.
func serverEnv(own []string, port int) []string {
	var out []string
	for _, kv := range own {
		k, _, ok := strings.Cut(kv, "=")
		if ok && (slices.Contains(serverVars, k) || strings.HasPrefix(k, "LC_")) {
			out = append(out, kv)
		}
	}
	return append(out, "PORT="+itoa(port))
}

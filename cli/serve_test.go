package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeUsage: serve without --ssh is bad usage, as are metrics on the
// server's own port; a server nobody could log in to does not start, and
// says how to let someone in.
func TestServeUsage(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	if _, stderr, code := e.run("serve"); code != 2 || !strings.Contains(stderr, "--ssh ADDR") {
		t.Fatalf("no address: exit %d, %q", code, stderr)
	}
	// The metrics never share the ssh port (or the MCP endpoint's), and
	// over stdio there is nothing to serve them for.
	if _, stderr, code := e.run("serve", "--ssh", "127.0.0.1:2222", "--metrics", ":2222"); code != 2 || !strings.Contains(stderr, "is the ssh port") || !strings.Contains(stderr, "9464") {
		t.Fatalf("--metrics on the ssh port: exit %d, %q", code, stderr)
	}
	if _, stderr, code := e.run("mcp", "serve", "--http", ":8808", "--metrics", "127.0.0.1:8808"); code != 2 || !strings.Contains(stderr, "the MCP endpoint's port") {
		t.Fatalf("--metrics on the MCP port: exit %d, %q", code, stderr)
	}
	if _, stderr, code := e.run("mcp", "serve", "--metrics", "127.0.0.1:9465"); code != 2 || !strings.Contains(stderr, "--metrics needs --http") {
		t.Fatalf("--metrics over stdio: exit %d, %q", code, stderr)
	}
	_, stderr, code := e.run("serve", "--ssh", "127.0.0.1:0")
	if code != 1 || !strings.Contains(stderr, "authorized_keys does not exist") || !strings.Contains(stderr, "cat ~/.ssh/id_ed25519.pub >>") {
		t.Fatalf("no authorized keys: exit %d, %q", code, stderr)
	}
	// The command it suggests works on a fresh install, where the folder
	// of authorized_keys does not exist yet, and in a folder with a space
	// (macOS's "Application Support").
	e.env["XDG_CONFIG_HOME"] = filepath.Join(t.TempDir(), "Application Support")
	_, stderr, _ = e.run("serve", "--ssh", "127.0.0.1:0")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	const pub = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFtq2kq1lx2aWkq4bqXhqZsr6q2TtGfr0D2wG3tH5A0b me@laptop\n"
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519.pub"), []byte(pub), 0o644); err != nil {
		t.Fatal(err)
	}
	_, suggested, ok := strings.Cut(stderr, "e.g. `")
	suggested, _, _ = strings.Cut(suggested, "`")
	if !ok || suggested == "" {
		t.Fatalf("no command in %q", stderr)
	}
	sh := exec.Command("sh", "-c", suggested)
	sh.Env = append(os.Environ(), "HOME="+home)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("the suggested %q fails: %v\n%s", suggested, err, out)
	}
	b, err := os.ReadFile(filepath.Join(e.env.ConfigDir(), "authorized_keys"))
	if err != nil || string(b) != pub {
		t.Fatalf("authorized_keys after the suggested command: %q, %v", b, err)
	}
}

package main

import (
	"strings"
	"testing"
)

// TestServeUsage: serve without --ssh is bad usage; a server nobody could
// log in to does not start, and says how to let someone in.
func TestServeUsage(t *testing.T) {
	newCLIEnv(t, nil)
	if _, stderr, code := runCLI("serve"); code != 2 || !strings.Contains(stderr, "--ssh ADDR") {
		t.Fatalf("no address: exit %d, %q", code, stderr)
	}
	_, stderr, code := runCLI("serve", "--ssh", "127.0.0.1:0")
	if code != 1 || !strings.Contains(stderr, "authorized_keys does not exist") || !strings.Contains(stderr, "cat ~/.ssh/id_ed25519.pub >>") {
		t.Fatalf("no authorized keys: exit %d, %q", code, stderr)
	}
}

package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `chorus man` is listed in `chorus --help`, and its page has a clean
// header: name and section, date, "chorus VERSION" and "User Commands" —
// not the one-line description squeezed into the centre of the header.
func TestManPage(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	root := newRootCmd(bareEnv(t).options())
	root.SetOut(&out)
	root.SetErr(&errb)
	if code := execute(context.Background(), root, []string{"--help"}); code != 0 {
		t.Fatalf("--help: exit %d: %s", code, errb.String())
	}
	if !regexp.MustCompile(`(?m)^\s+man\s+\S`).MatchString(out.String()) {
		t.Errorf("chorus --help does not list man:\n%s", out.String())
	}

	out.Reset()
	root = newRootCmd(bareEnv(t).options())
	root.SetOut(&out)
	root.SetErr(&errb)
	if code := execute(context.Background(), root, []string{"man"}); code != 0 {
		t.Fatalf("man: exit %d: %s", code, errb.String())
	}
	page := out.String()
	head, _, _ := strings.Cut(page, "\n")
	if !regexp.MustCompile(`^\.TH CHORUS 1 "\d{4}-\d{2}-\d{2}" "chorus [^"]+" "User Commands"$`).MatchString(head) {
		t.Errorf("header = %q", head)
	}
	for _, want := range []string{".SH NAME", "chorus \\- ", ".SH SYNOPSIS", "\\fBrun\\fP", "\\fB--config\\fP"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// As man(1) renders it: the header line names the page at both ends
	// and the manual in the middle, nothing else.
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	f := filepath.Join(t.TempDir(), "chorus.1")
	if err := os.WriteFile(f, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("man", "-l", f)
	cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat", "MAN_KEEP_FORMATTING=0")
	rendered, err := cmd.Output()
	if err != nil {
		t.Fatalf("man -l: %v", err)
	}
	first := strings.TrimSpace(strings.SplitN(string(rendered), "\n", 2)[0])
	if !regexp.MustCompile(`^CHORUS\(1\)\s+User Commands\s+CHORUS\(1\)$`).MatchString(first) {
		t.Errorf("man -l renders the header as %q", first)
	}
	if strings.Contains(string(rendered), ".PP") || strings.Contains(string(rendered), "\\f") {
		t.Errorf("roff markup shows through:\n%s", rendered)
	}
}
